#include "models/dependency_policy.h"

#include <stdexcept>

#include "models/early_policy.h"

namespace npusim {

std::unique_ptr<DependencyPolicy> make_dependency_policy(SchedulerPolicy policy,
                                                         const Program& program,
                                                         ComputeStart compute_start) {
  switch (policy) {
    case SchedulerPolicy::Strict:
      return std::make_unique<StrictPolicy>();
    case SchedulerPolicy::Early:
      return std::make_unique<EarlyPolicy>(program, compute_start);
  }
  throw std::invalid_argument("unknown scheduler policy");
}

}  // namespace npusim
