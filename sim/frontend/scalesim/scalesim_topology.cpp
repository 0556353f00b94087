#include "sim/frontend/scalesim/scalesim_topology.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "sim/config/config_error.h"
#include "sim/config/json_reader.h"
#include "sim/frontend/json/workload_json.h"

namespace npusim {
namespace {

using nlohmann::json;

constexpr uint64_t kMaxValue = 65536;      // as the JSON layer keys allow
constexpr size_t kMaxTopologyRows = 4096;  // as a network's layers

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// The cells as a header line, cut at 120 characters.
std::string joined(const std::vector<std::string>& cells) {
  std::string out;
  for (const std::string& c : cells) out += (out.empty() ? "" : ", ") + c;
  return out.size() > 120 ? out.substr(0, 117) + "..." : out;
}

std::vector<std::string> split_cells(const std::string& line) {
  std::vector<std::string> cells;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ',')) cells.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') cells.push_back("");
  while (!cells.empty() && cells.back().empty()) cells.pop_back();  // trailing commas
  return cells;
}

// "IFMAP Height" -> "ifmapheight": how headers are compared.
std::string squeeze(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Row {
  size_t line = 0;
  std::vector<std::string> cells;
};

// The JSON layer key each column fills, in SCALE-Sim's column order.
struct Column {
  const char* key;
  const char* header;  // how the error names the column
};
const std::vector<Column> kConvColumns = {
    {"H", "IFMAP Height"}, {"W", "IFMAP Width"}, {"R", "Filter Height"}, {"S", "Filter Width"},
    {"C", "Channels"},     {"K", "Num Filter"},  {"stride", "Strides"}};
const std::vector<Column> kGemmColumns = {{"H", "M"}, {"K", "N"}, {"C", "K"}};

class TopologyReader {
 public:
  TopologyReader(const std::string& raw, const std::string& file) : file_(file) {
    // Spreadsheets write a UTF-8 byte-order mark and \r\n or bare \r line ends.
    std::string text = raw.rfind("\xEF\xBB\xBF", 0) == 0 ? raw.substr(3) : raw;
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\r') text[i] = i + 1 < text.size() && text[i + 1] == '\n' ? ' ' : '\n';
    std::stringstream in(text);
    std::string line;
    for (size_t number = 1; std::getline(in, line); ++number) {
      std::vector<std::string> cells = split_cells(line);
      if (cells.empty()) continue;
      // A header and at most kMaxTopologyRows layers: stop before a huge file
      // becomes a huge network in memory (issue 21, item 4).
      if (rows_.size() > kMaxTopologyRows)
        throw ConfigError(file_ + ":" + std::to_string(number), "",
                          "at most " + std::to_string(kMaxTopologyRows) +
                              " layer rows (a network has at most that many layers)",
                          "more");
      rows_.push_back({number, std::move(cells)});
    }
  }

  NetworkConfig read() {
    if (rows_.empty())
      throw ConfigError(file_, "", "a SCALE-Sim topology: a header row, then one row per layer",
                        "an empty file");
    read_header(rows_[0]);
    json layers = json::array();
    std::map<std::string, size_t> name_lines;
    for (size_t i = 1; i < rows_.size(); ++i) {
      json layer = read_row(rows_[i]);
      const std::string name = layer["name"];
      const auto [it, inserted] = name_lines.emplace(name, rows_[i].line);
      if (!inserted)
        fail(rows_[i], "/" + header_[0], "a layer name no other row uses",
             "\"" + name + "\" (also on line " + std::to_string(it->second) + ")");
      layers.push_back(std::move(layer));
    }
    if (layers.empty())
      throw ConfigError(where(rows_[0]), "", "at least one layer row after the header",
                        "no layer rows");
    const std::string stem = std::filesystem::path(file_).stem().string();
    const json network = {{"name", stem.empty() ? "topology" : stem}, {"layers", layers}};
    try {
      NetworkConfig net = parse_workload(network, file_);
      for (std::string& w : warnings()) net.warnings.push_back(std::move(w));
      return net;
    } catch (const ConfigError& e) {
      throw located(e);  // say it in the CSV's terms: its line and column
    }
  }

 private:
  std::string where(const Row& row) const { return file_ + ":" + std::to_string(row.line); }

  [[noreturn]] void fail(const Row& row, const std::string& pointer, const std::string& expected,
                         const std::string& found) const {
    throw ConfigError(where(row), pointer, expected, found);
  }

  void read_header(const Row& row) {
    header_ = row.cells;
    std::vector<std::string> names;
    for (const std::string& cell : header_) names.push_back(squeeze(cell));
    const bool gemm = names.size() >= 4 && names[1] == "m" && names[2] == "n" && names[3] == "k";
    const bool conv = names.size() >= 8 && names[1].find("ifmap") != std::string::npos;
    if (!gemm && !conv)
      fail(row, "",
           "a SCALE-Sim header: \"Layer name, IFMAP Height, IFMAP Width, Filter Height, Filter "
           "Width, Channels, Num Filter, Strides\" or \"Layer name, M, N, K\"",
           "\"" + joined(row.cells) + "\" (" + std::to_string(row.cells.size()) + " columns)");
    columns_ = gemm ? kGemmColumns : kConvColumns;
    // A ninth convolution column that names a stride is the column stride.
    if (conv && names.size() > 8 && names[8].find("stride") != std::string::npos)
      column_stride_ = 8;
  }

  uint64_t number(const Row& row, size_t column) const {
    const std::string pointer = "/" + header_.at(column);
    const std::string expected = "an integer in 1.." + std::to_string(kMaxValue);
    if (column >= row.cells.size() || row.cells[column].empty())
      fail(row, pointer, expected, "an empty cell");
    const std::string& cell = row.cells[column];
    if (!std::all_of(cell.begin(), cell.end(), [](char c) { return std::isdigit(c) != 0; }) ||
        cell.size() > 6 || std::stoull(cell) == 0 || std::stoull(cell) > kMaxValue)
      fail(row, pointer, expected, "\"" + cell + "\"");
    return std::stoull(cell);
  }

  json read_row(const Row& row) {
    if (row.cells[0].empty()) fail(row, "/" + header_[0], "a layer name", "an empty cell");
    // Names end up in JSON reports, which must be UTF-8: fail here, not after the run.
    if (!valid_utf8(row.cells[0]))
      fail(row, "/" + header_[0], "a layer name in UTF-8", "bytes that are not UTF-8");
    json layer = {{"name", row.cells[0]}, {"padding", 0}};
    for (size_t c = 0; c < columns_.size(); ++c) layer[columns_[c].key] = number(row, c + 1);
    if (columns_.size() == kGemmColumns.size()) {
      layer["W"] = 1;  // M pixels in one column, each a 1x1 "convolution" of K channels
      layer["R"] = 1;
      layer["S"] = 1;
    } else {
      // SCALE-Sim reads a ninth cell as the column stride whatever the header
      // says; under an eight-column header a numeric one is taken the same way.
      const bool unnamed_stride = column_stride_ == 0 && header_.size() <= 8 &&
                                  row.cells.size() > 8 && is_number(row.cells[8]);
      const size_t column = column_stride_ != 0 ? column_stride_ : unnamed_stride ? 8 : 0;
      const std::string cell = column < row.cells.size() ? row.cells[column] : "";
      if (column != 0 && (!is_number(cell) || std::stoull(cell) != layer["stride"].get<uint64_t>()))
        fail(row, "/" + (column < header_.size() ? header_[column] : "column 9 (stride width)"),
             "the same stride as " + header_[7] + " (npusim has one stride for both axes)",
             "\"" + cell + "\"");
      note_differences(row, layer);
    }
    line_of_.push_back(row);
    return layer;
  }

  static bool is_number(const std::string& cell) {
    return !cell.empty() && cell.size() <= 6 &&
           std::all_of(cell.begin(), cell.end(), [](char c) { return std::isdigit(c) != 0; });
  }

  // Rows that run here, but not as SCALE-Sim runs them (issue 21, item 9).
  void note_differences(const Row& row, const json& layer) {
    const std::string name = row.cells[0];
    if (name.find("DP") != std::string::npos) depthwise_.push_back(name);
    const uint64_t stride = layer["stride"];
    for (const char* axis : {"H", "W"}) {
      const uint64_t in = layer[axis];
      const uint64_t filter = layer[std::string(axis) == "H" ? "R" : "S"];
      if (filter <= in && (in - filter) % stride != 0) {
        rounded_.push_back(name);
        break;
      }
    }
  }

  // One warning per kind of difference, naming the rows (the first five).
  static std::string listed(const std::vector<std::string>& names) {
    std::string text;
    for (size_t i = 0; i < names.size() && i < 5; ++i) text += (i ? ", " : "") + names[i];
    if (names.size() > 5) text += ", ... (" + std::to_string(names.size()) + " rows)";
    return text;
  }

  std::vector<std::string> warnings() const {
    std::vector<std::string> out;
    if (!depthwise_.empty())
      out.push_back(file_ +
                    ": SCALE-Sim treats a row whose name contains \"DP\" as a depthwise "
                    "layer and splits it per channel; npusim runs it as an ordinary convolution: " +
                    listed(depthwise_));
    if (!rounded_.empty())
      out.push_back(file_ +
                    ": where (IFMAP - filter) is not a multiple of the stride, SCALE-Sim "
                    "rounds the output size up (one more row or column) and npusim down: " +
                    listed(rounded_));
    return out;
  }

  // Maps an error about /layers/<i>/<key> of the generated network back to
  // the CSV: the row's line and the column that holds <key>.
  ConfigError located(const ConfigError& e) const {
    const std::string prefix = "/layers/";
    if (e.pointer().rfind(prefix, 0) != 0) return e;
    const std::string rest = e.pointer().substr(prefix.size());
    const size_t slash = rest.find('/');
    const size_t index = std::stoul(rest.substr(0, slash));
    if (index >= line_of_.size()) return e;
    const std::string key = slash == std::string::npos ? "" : rest.substr(slash + 1);
    // A check on the whole layer (a tensor too large) points at the row's name.
    std::string column = "/" + (key.empty() ? header_.at(0) : key);
    for (size_t c = 0; c < columns_.size(); ++c)
      if (key == columns_[c].key) column = "/" + header_.at(c + 1);
    if (key == "padding") column = "";  // imported as 0: the IFMAP size is the fix
    return ConfigError(where(line_of_[index]), column, e.expected(), e.found(), e.hint());
  }

  std::string file_;
  std::vector<Row> rows_;
  std::vector<std::string> header_;
  std::vector<Column> columns_;
  size_t column_stride_ = 0;
  std::vector<Row> line_of_;            // the row each generated layer came from
  std::vector<std::string> depthwise_;  // rows named *DP*
  std::vector<std::string> rounded_;    // rows whose output size SCALE-Sim rounds up
};

}  // namespace

NetworkConfig parse_scalesim_topology(const std::string& text, const std::string& file) {
  return TopologyReader(text, file).read();
}

bool is_scalesim_topology(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".csv";
}

}  // namespace npusim
