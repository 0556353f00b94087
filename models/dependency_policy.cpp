#include "models/dependency_policy.h"

#include <stdexcept>

namespace npusim {

std::unique_ptr<DependencyPolicy> make_dependency_policy(SchedulerPolicy policy) {
  switch (policy) {
    case SchedulerPolicy::Strict:
      return std::make_unique<StrictPolicy>();
    case SchedulerPolicy::Early:
      throw std::invalid_argument(
          "scheduler.policy \"early\" (seed 004 early completion) is not implemented yet; "
          "use \"strict\"");
  }
  throw std::invalid_argument("unknown scheduler policy");
}

}  // namespace npusim
