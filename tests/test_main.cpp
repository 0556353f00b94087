// Test entry point: silence SystemC's banner, let SystemC call sc_main, run Catch2.
#define CATCH_CONFIG_RUNNER
// Catch's console reporter indents a test's wrapped name past its first ": ", and aborts (an
// assertion in its text wrapper) when that indent reaches the console width: a failure or a
// WARN of a test whose title has a ": " beyond column 78 ended in that abort instead of its
// report. Titles here run to about 250 characters.
#define CATCH_CONFIG_CONSOLE_WIDTH 300
#include <catch2/catch.hpp>
#include <cstdlib>
#include <systemc>

int sc_main(int argc, char* argv[]) { return Catch::Session().run(argc, argv); }

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  // No kernel-count cache under ~/.cache unless a test sets one (tests/CMakeLists.txt says why).
  setenv("NPUSIM_KERNEL_CACHE", "", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
