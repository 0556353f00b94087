// Running npusim itself as a child process: SystemC elaborates once per
// process, so anything that needs two simulations (policy comparison, sweeps,
// regressions) runs one child per simulation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace npusim::cli {

std::string self_path();  // this executable
// This process's command line, words joined by spaces, a word quoted only
// when the shell would need it ("npusim run layer.json --set k=v").
std::string own_command_line();
std::string shell_quote(const std::string& s);  // '...' with embedded quotes escaped
// Runs `command` with /bin/sh; returns its exit code (or 128 + signal).
int run_child(const std::string& command);
std::string make_temp_dir();  // a fresh folder under $TMPDIR
void remove_dir(const std::string& dir);
// Creates the folder a file is to be written into (no-op when it exists).
void make_parent_dirs(const std::string& file);
// Parses a JSON file; throws std::runtime_error naming it.
nlohmann::json read_json_file(const std::string& path);

}  // namespace npusim::cli
