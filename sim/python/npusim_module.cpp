// The Python module's compiled half, `npusim._npusim` (pybind11). What needs no
// simulation runs inside the Python process with the CLI's own code: a
// hardware description (a file, a dict, --set overrides) checked and resolved
// by the same parser, so a bad key raises the message the CLI prints; the
// parameter reference; the version. Simulations run in the npusim executable,
// one process each, as SystemC elaborates once per process (npusim/_api.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/config/hardware_config.h"
#include "sim/config/json_reader.h"
#include "sim/config/resolve_hardware.h"

namespace py = pybind11;

namespace {

// The effective hardware as JSON text, every field written out.
std::string resolved_text(nlohmann::json j, const std::string& origin,
                          const std::vector<std::string>& sets) {
  return npusim::to_json(npusim::resolve_hardware_json(std::move(j), origin, sets)).dump();
}

}  // namespace

PYBIND11_MODULE(_npusim, m) {
  m.doc() = "npusim's compiled half: hardware checking with the CLI's parser (see npusim)";
  // A bad hardware description; the Python layer re-raises it as npusim.InputError.
  static py::exception<npusim::ConfigError> config_error(m, "ConfigError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const npusim::ConfigError& e) {
      config_error(e.what());
    }
  });
  m.def(
      "resolve_hardware_text",
      [](const std::string& json_text, const std::string& origin,
         const std::vector<std::string>& sets) {
        nlohmann::json j = nlohmann::json::object();
        if (!json_text.empty()) {
          j = nlohmann::json::parse(json_text, nullptr, false);
          if (j.is_discarded() || !j.is_object())
            throw npusim::ConfigError(origin, "", "a JSON object", "something else");
        }
        return resolved_text(std::move(j), origin, sets);
      },
      py::arg("json_text"), py::arg("origin"), py::arg("sets"),
      "Resolves hardware given as JSON text (empty: the built-in defaults) plus overrides; "
      "returns the effective hardware as JSON text.");
  m.def(
      "resolve_hardware_file",
      [](const std::string& path, const std::vector<std::string>& sets) {
        return resolved_text(npusim::load_json_file(path), path, sets);
      },
      py::arg("path"), py::arg("sets"),
      "Resolves a hardware JSON file plus overrides, as `npusim run --hw PATH --set ...`.");
  m.def("parameter_reference", &npusim::hardware_parameter_reference,
        "The table of every hardware key, its default and meaning (docs/config.md).");
  m.attr("version") = NPUSIM_VERSION;
}
