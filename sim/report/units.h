// Figures as a person reads them: bytes, durations and energies printed in the
// unit that keeps the number short (KiB/MiB/GiB, us/ms/s, uJ/mJ/J), so the
// run's headline lines read at a glance (docs/reports.md#units). Counters and
// report.json keep exact integers and fixed units; only printed text scales.
#pragma once

#include <cstdint>
#include <string>

namespace npusim {

// 512 -> "512 B", 379187 -> "370.3 KiB", 491115315 -> "468.4 MiB",
// 3 GiB -> "3.00 GiB": binary prefixes, the largest that leaves at least 1.
std::string bytes_text(uint64_t bytes);
// Seconds: under 1 ms in us, under 1 s in ms, else s; three decimals.
std::string duration_text(double seconds);
// Micro-joules: under 1 mJ in uJ, under 1 J in mJ, else J; three decimals.
std::string energy_text(double microjoules);

}  // namespace npusim
