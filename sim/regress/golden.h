// Golden records: what a regression case must reproduce, taken from an
// `npusim run` report.json, written as diff-friendly JSON (keys sorted, one
// value a line), and compared field by field.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace npusim::regress {

// The counters a golden keeps (totals and per layer), where the run's report
// has them: DRAM traffic, MACs, and every stall cause.
extern const std::vector<std::string> kGoldenCounters;

// Golden record format version (the "format" key), raised on any change of meaning.
constexpr int kGoldenFormat = 1;

// {"format", "case", "timing_only", "cycles", "counters": {...},
//  "layers": [{"name", "cycles", "digest" (null when not checked), "counters": {...}}]}
nlohmann::json golden_from_report(const std::string& case_name, const nlohmann::json& report);

// One field that moved. `old_value`/`new_value` are the JSON values (null when
// the field is absent on that side).
struct FieldChange {
  std::string field;  // "cycles", "dram.read_bytes", "conv1/cycles", "conv1/digest", ...
  nlohmann::json old_value, new_value;
  bool within_tolerance = false;   // moved, but by no more than the case's tolerance
  std::string difference() const;  // "+12 (+0.66%)", "differs", "added", "removed"
};

// Checks a golden record read from `file` (as golden_text writes it): format
// kGoldenFormat, every key known and of its type (counts are whole numbers,
// counters are kGoldenCounters, a digest is a string or null). Throws
// ConfigError naming the file, the JSON pointer, what was expected and found.
void check_golden(const nlohmann::json& record, const std::string& file);

// Compares a new record with the golden. Digests and the layer list always
// compare exactly; a numeric field may move by `tolerance` (relative, by
// field class: "cycles" or a counter name) and still pass. Layers match by
// name, in time linear in the layers (a decoder has tens of thousands).
std::vector<FieldChange> compare_golden(const nlohmann::json& golden, const nlohmann::json& fresh,
                                        const std::map<std::string, double>& tolerance);

// Any change beyond tolerance?
bool has_regression(const std::vector<FieldChange>& changes);

// Pretty JSON, 2-space indent, trailing newline.
std::string golden_text(const nlohmann::json& record);

}  // namespace npusim::regress
