package io.schedlens.projections.dcgm;

import java.util.Set;

/**
 * DCGM's "no value" sentinels, which dcgm-exporter passes through as if they were readings: blank,
 * not found, not supported and not permissioned, for 32-bit and 64-bit integers and for doubles
 * (dcgm_structs.h: DCGM_INT32_BLANK 0x7ffffff0 .., DCGM_INT64_BLANK 0x7ffffffffffffff0 ..,
 * DCGM_FP64_BLANK 140737488355328.0 ..). The 64-bit ones are above 2^53 and cannot be told apart as
 * doubles, so they are recognised from the value as written.
 */
final class DcgmSentinels {

  private static final Set<Long> INTEGER_SENTINELS =
      Set.of(
          2147483632L,
          2147483633L,
          2147483634L,
          2147483635L,
          9223372036854775792L,
          9223372036854775793L,
          9223372036854775794L,
          9223372036854775795L);

  private static final Set<Double> DOUBLE_SENTINELS =
      Set.of(140737488355328.0, 140737488355329.0, 140737488355330.0, 140737488355331.0);

  private DcgmSentinels() {}

  /** Whether the value is a DCGM sentinel rather than a reading. */
  static boolean isSentinel(String raw, double value) {
    if (DOUBLE_SENTINELS.contains(value)) {
      return true;
    }
    String digits = raw.startsWith("+") ? raw.substring(1) : raw;
    int dot = digits.indexOf('.');
    if (dot >= 0) {
      // 9223372036854775794.000000 is still the sentinel.
      for (int i = dot + 1; i < digits.length(); i++) {
        if (digits.charAt(i) != '0') {
          return false;
        }
      }
      digits = digits.substring(0, dot);
    }
    if (digits.isEmpty() || digits.length() > 19) {
      return false;
    }
    for (int i = 0; i < digits.length(); i++) {
      if (digits.charAt(i) < '0' || digits.charAt(i) > '9') {
        return false;
      }
    }
    try {
      return INTEGER_SENTINELS.contains(Long.parseLong(digits));
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
