package io.schedlens.cli;

import java.util.List;

/** One {@code ./schedlens} subcommand. */
interface Command {

  /** Runs the command; the return value is the process exit code. */
  int run(List<String> args) throws Exception;
}
