#include "models/accelerator.h"

#include <cstdlib>

#include "models/cost/cost_model.h"

namespace npusim {

Accelerator::Accelerator(sc_core::sc_module_name name, const HardwareConfig& hw,
                         const Program& program, StatsRegistry& stats, EngineOptions options,
                         Timeline& timeline)
    : sc_module(name),
      hw_(hw),
      stats_(stats),
      controller_("controller", hw, program,
                  make_dependency_policy(hw.policy, program, hw.compute_start), stats, timeline),
      dram_("dram", hw.dram, hw.clock_mhz, program, stats, timeline, options.functional,
            options.dram_transfers),
      cache_("cache", hw, program, stats, timeline),
      load_("load_engine", hw, options, stats),
      compute_("compute_engine", hw, options, stats),
      store_("store_engine", hw, options, stats),
      vector_("vector_unit", hw, options, stats),
      bound_compute_(stats.declare("bound.compute_cycles", "cycles",
                                   "lower bound: array work cycles / compute units")),
      bound_memory_(stats.declare("bound.memory_cycles", "cycles",
                                  "lower bound: cycles the shared bus must move data")),
      bound_serial_(stats.declare("bound.serial_cycles", "cycles",
                                  "upper bound: every instruction run alone, one after another")) {
  // Program facts the report needs beside what the engines count (seed 002).
  Counter& nonzeros = stats.declare("weights.nonzeros", "coefficients",
                                    "non-zero kernel coefficients of the layer");
  Counter& coefficients = stats.declare("weights.coefficients", "coefficients",
                                        "kernel coefficients of the layer, K*R*S*C");
  for (uint32_t l = 0; l < program.layers.size(); ++l) {
    const LayerDescriptor& L = program.layers[l];
    const uint64_t all = runs_on_array(L.op) ? uint64_t(L.K) * L.R * L.S * L.group_channels() : 0;
    uint64_t nz = 0;
    for (uint32_t n : L.kernel_nonzeros) nz += n;
    coefficients.add(l, all);
    nonzeros.add(l, L.kernel_nonzeros.empty() ? all : nz);
  }
  for (Engine* e : std::initializer_list<Engine*>{&load_, &compute_, &store_, &vector_}) {
    e->scheduler(controller_);
    e->dram(dram_);
    e->cache(cache_);
  }
}

RunOutcome Accelerator::run() {
  sc_core::sc_start();
  RunOutcome outcome;
  outcome.cycles = controller_.finish_cycle();
  if (!controller_.error().empty()) {
    outcome.status = RunOutcome::Status::Failed;
    outcome.message = controller_.error();
  } else if (!controller_.all_done()) {
    outcome.status = RunOutcome::Status::Deadlocked;
    outcome.message = "deadlock at cycle " + std::to_string(now_cycles()) +
                      ": no engine can make progress\n" + controller_.describe_waiting();
  }
  dram_.finish();  // the writes its controllers still hold
  controller_.finalize_layer_counters();
  finalize_bounds();
  outcome.dram_channels = dram_.channel_figures();
  return outcome;
}

void Accelerator::finalize_bounds() {
  const Counter& work = stats_.get("compute.work_cycles");
  const Counter& bus = stats_.get("dram.bus_busy_cycles");
  const Counter& load = stats_.get("load.standalone_cycles");
  const Counter& compute = stats_.get("compute.standalone_cycles");
  const Counter& store = stats_.get("store.standalone_cycles");
  const Counter& vector_work = stats_.get("vector.work_cycles");
  const Counter& vector = stats_.get("vector.standalone_cycles");
  for (uint32_t l = 0; l < stats_.layers(); ++l) {
    // A vector operator's lanes bound it the way the array bounds a convolution.
    bound_compute_.add(l, cost::ceil_div(work.at(l), hw_.compute.units) + vector_work.at(l));
    bound_memory_.add(l, bus.at(l));
    bound_serial_.add(l, load.at(l) + compute.at(l) + store.at(l) + vector.at(l));
  }
}

void quiet_systemc() {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
}

}  // namespace npusim
