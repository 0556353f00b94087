#include "sim/sweep/results.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "sim/report/csv.h"
#include "sim/sweep/pareto.h"

namespace npusim::sweep {

using nlohmann::json;

const char* to_string(Status s) {
  switch (s) {
    case Status::Pending:
      return "pending";
    case Status::Ok:
      return "ok";
    case Status::Failed:
      return "failed";
    case Status::Timeout:
      return "timeout";
    case Status::Pruned:
      return "pruned";
  }
  return "?";
}

const std::vector<std::string>& metric_names() {
  static const std::vector<std::string> names = {"cycles",
                                                 "time_us",
                                                 "hw_mac_util",
                                                 "useful_mac_util",
                                                 "dram_read_bytes",
                                                 "dram_write_bytes",
                                                 "dram_bytes",
                                                 "energy_uj",
                                                 "area_mm2",
                                                 "sram_bytes",
                                                 "macs_per_cycle",
                                                 "units_used",
                                                 "cache_kib_used",
                                                 "array_rows_used",
                                                 "array_cols_used",
                                                 "first_token_ms",
                                                 "decode_ms_per_token",
                                                 "tokens_per_second",
                                                 "wall_s"};
  return names;
}

const std::vector<std::string>& estimate_metric_names() {
  static const std::vector<std::string> names = {
      "cycles",          "time_us",         "hw_mac_util", "area_mm2",
      "sram_bytes",      "macs_per_cycle",  "units_used",  "cache_kib_used",
      "array_rows_used", "array_cols_used", "wall_s"};
  return names;
}

PointResult result_from_report(const json& report) {
  try {
    // An estimate's report.json (`npusim estimate`) gives estimate_metric_names();
    // the metrics only a simulation counts are NaN.
    const bool estimate = report.value("kind", "") == "estimate";
    const auto simulated = [&](const auto& value) { return estimate ? std::nan("") : value(); };
    const json& totals = report.at("totals");
    const json& hw = report.at("hardware");
    const auto total = [&](const char* key) { return totals.at(key).get<double>(); };
    const auto counter = [&](const char* name) {
      return totals.at("counters").at(name).get<double>();
    };
    const json& compute = hw.at("compute");
    // A decoder's per-token figures (docs/decoders.md#decoder-figures); 0 for other workloads.
    const json none = json::object();
    const json& decoder = report.contains("decoder") ? report.at("decoder") : none;
    const auto figure = [&](const char* key) {
      return simulated([&] { return decoder.contains(key) ? decoder.at(key).get<double>() : 0.0; });
    };
    // What the program was compiled for (docs/compile-trials.md#compile-trials):
    // units_used, the most units a layer's pieces are dealt to (an estimate:
    // its partition's; NaN when no layer runs on the array); cache_kib_used,
    // the compile trials' choice, else compiler.cache_kib, else the whole cache.
    double units_used = std::nan("");
    if (estimate) {
      const uint32_t units = report.at("partition").at("units").get<uint32_t>();
      units_used = units != 0 ? units : compute.at("units").get<double>();
    } else {
      for (const json& layer : report.at("layers")) {
        const uint32_t units = layer.contains("tiling") ? layer.at("tiling").value("units", 0u) : 0;
        if (units != 0)
          units_used = std::isnan(units_used) ? units : std::max<double>(units_used, units);
      }
    }
    const uint32_t chosen_kib = report.contains("compile_trials")
                                    ? report.at("compile_trials").at("cache_kib").get<uint32_t>()
                                    : 0;
    const uint32_t budget_kib = hw.at("compiler").at("cache_kib").get<uint32_t>();
    const double cache_kib_used = chosen_kib != 0   ? chosen_kib
                                  : budget_kib != 0 ? budget_kib
                                                    : hw.at("cache").at("size_kib").get<double>();
    // array_*_used: the part of the array the program uses
    // (docs/compile-trials.md#array-in-use): the trials' choice, else compiler.array_*,
    // else the whole array.
    const auto array_used = [&](const char* key) {
      const uint32_t chosen =
          report.contains("compile_trials") ? report.at("compile_trials").value(key, 0u) : 0;
      const uint32_t given = hw.at("compiler").value(key, 0u);
      return chosen != 0  ? double(chosen)
             : given != 0 ? double(given)
                          : compute.at(key).get<double>();
    };
    PointResult r;
    r.status = Status::Ok;
    r.metrics = {
        total("cycles"),
        total("time_us"),
        total("hw_mac_util"),
        simulated([&] { return total("useful_mac_util"); }),
        simulated([&] { return counter("dram.read_bytes"); }),
        simulated([&] { return counter("dram.write_bytes"); }),
        simulated([&] { return counter("dram.read_bytes") + counter("dram.write_bytes"); }),
        simulated([&] { return total("energy_uj"); }),
        report.at("area").at("total_mm2").get<double>(),
        hw.at("cache").at("size_kib").get<double>() * 1024,
        compute.at("units").get<double>() * compute.at("array_rows").get<double>() *
            compute.at("array_cols").get<double>(),
        units_used,
        cache_kib_used,
        array_used("array_rows"),
        array_used("array_cols"),
        figure("first_token_ms"),
        figure("mean_step_ms"),
        figure("tokens_per_second"),
        report.at("wall_seconds").get<double>()};
    return r;
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("report.json lacks a field the sweep reads: ") + e.what());
  }
}

namespace {

std::string format_metric(const std::string& name, double v) {
  if (std::isnan(v)) return "";  // a metric an estimate does not give
  char buf[64];
  if (name == "hw_mac_util" || name == "useful_mac_util" || name == "wall_s" || name == "time_us" ||
      name == "first_token_ms" || name == "decode_ms_per_token" || name == "tokens_per_second" ||
      name == "energy_uj" || name == "area_mm2" || v != std::floor(v) || std::fabs(v) >= 1e18)
    std::snprintf(buf, sizeof buf, "%.10g", v);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string value_field(const json& v) {
  return csv_field(v.is_string() ? v.get<std::string>() : v.dump());
}

}  // namespace

std::string results_csv(const SweepSpec& spec, const std::vector<Point>& points,
                        const std::vector<PointResult>& results) {
  const auto& names = metric_names();
  std::string out = "id";
  for (const Parameter& p : spec.parameters) out += "," + csv_field(p.name);
  out += ",status";
  for (const std::string& m : names) out += "," + m;
  out += ",reason\n";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const PointResult& r = results[i];
    out += points[i].id;
    for (const json& v : points[i].values) out += "," + value_field(v);
    out += std::string(",") + to_string(r.status);
    for (std::size_t m = 0; m < names.size(); ++m)
      out += "," + (r.metrics.empty() ? std::string() : format_metric(names[m], r.metrics[m]));
    out += "," + csv_field(r.reason) + "\n";
  }
  return out;
}

std::vector<std::size_t> pareto_indices(const SweepSpec& spec, const std::vector<Point>& points,
                                        const std::vector<PointResult>& results) {
  std::vector<std::size_t> finished;
  std::vector<std::vector<double>> costs;
  const auto& names = metric_names();
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (results[i].status != Status::Ok) continue;
    std::vector<double> c;
    for (const Objective& o : spec.objectives) {
      const std::size_t m =
          static_cast<std::size_t>(std::find(names.begin(), names.end(), o.metric) - names.begin());
      const double v = o.parameter >= 0
                           ? points[i].values[static_cast<std::size_t>(o.parameter)].get<double>()
                           : results[i].metrics[m];
      c.push_back(o.maximise ? -v : v);
    }
    finished.push_back(i);
    costs.push_back(std::move(c));
  }
  std::vector<std::size_t> front;
  for (std::size_t k : pareto_front(costs)) front.push_back(finished[k]);
  return front;
}

}  // namespace npusim::sweep
