#include "models/stage_name.h"

#include "models/interfaces.h"

namespace npusim {

std::string StageName::str() const { return scheduler_->who(*in_, stage_); }

}  // namespace npusim
