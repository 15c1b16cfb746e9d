package io.schedlens.projections.dcgm;

/** The input is not valid Prometheus text / OpenMetrics exposition; says where and why. */
public final class ExpositionFormatException extends Exception {

  private static final long serialVersionUID = 1L;
  private final int line;
  private final int column;

  public ExpositionFormatException(int line, int column, String problem, CharSequence lineText) {
    super("line " + line + ", column " + column + ": " + problem + " in: " + excerpt(lineText));
    this.line = line;
    this.column = column;
  }

  /** 1-based line number. */
  public int line() {
    return line;
  }

  /** 1-based column number. */
  public int column() {
    return column;
  }

  private static String excerpt(CharSequence text) {
    String s = text.toString();
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < Math.min(s.length(), 120); i++) {
      char c = s.charAt(i);
      out.append(c < 0x20 || c == 0x7f ? '?' : c);
    }
    if (s.length() > 120) {
      out.append("...");
    }
    return "'" + out + "'";
  }
}
