#include "models/tile_buffer.h"

#include <sstream>

namespace npusim {

std::string TileTag::describe() const {
  if (layer < 0) return "nothing";
  std::ostringstream s;
  s << "layer " << layer << " n" << batch << " k[" << k_begin << ',' << k_end << ") rows["
    << row_begin << ',' << row_end << ')';
  if (channel_end != 0) s << " channels[" << channel_begin << ',' << channel_end << ')';
  return s.str();
}

template <typename T>
void TileBuffer<T>::require(const TileTag& expected, uint32_t r0, uint32_t r1, uint64_t now,
                            const StageName& reader) const {
  if (!held_ || !(tag_ == expected)) {
    throw SimulationError(reader.str() + " reads " + name_ + " expecting " + expected.describe() +
                          " but it holds " + (held_ ? tag_.describe() : "nothing"));
  }
  for (uint32_t r = r0; r < r1; ++r) {
    if (r >= rows_ || valid_at_[r] > now) {
      std::ostringstream s;
      s << reader.str() << " reads row " << r << " of " << name_ << " (" << tag_.describe()
        << ") at cycle " << now << " but that row "
        << (r >= rows_ || valid_at_[r] == kNever
                ? std::string("has not been loaded")
                : "arrives only at cycle " + std::to_string(valid_at_[r]));
      throw SimulationError(s.str());
    }
  }
}

template <typename T>
void TileBuffer<T>::reopen(const TileTag& expected, const TileTag& now, const StageName& writer) {
  if (!held_ || !(tag_ == expected))
    throw SimulationError(writer.str() + " adds to " + name_ + " expecting " + expected.describe() +
                          " but it holds " + (held_ ? tag_.describe() : "nothing"));
  tag_ = now;
  valid_at_.assign(rows_, kNever);
}

template class TileBuffer<int8_t>;
template class TileBuffer<int32_t>;

}  // namespace npusim
