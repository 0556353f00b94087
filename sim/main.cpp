// The npusim executable: everything lives in the libraries (sim/cli parses the
// command line). main() silences SystemC's banner before SystemC starts up,
// then hands over to SystemC, which calls sc_main.
#include <cstdlib>
#include <systemc>

#include "sim/cli/commands.h"

int sc_main(int argc, char* argv[]) { return npusim::cli::main(argc, argv); }

int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
