#include "models/engine.h"

#include <exception>

namespace npusim {

void Engine::guarded(const std::function<void()>& body) {
  try {
    body();
  } catch (const std::exception& e) {
    scheduler->fail(std::string(name()) + ": " + e.what());
  }
}

}  // namespace npusim
