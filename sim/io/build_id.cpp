#include "sim/io/build_id.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>

#include "sim/io/hex.h"

namespace npusim {
namespace {

struct Search {
  uintptr_t code = 0;  // an address inside this object
  std::string id;
};

// The NT_GNU_BUILD_ID note among the notes of [begin, end), as hex; "" if none.
std::string build_id_in(const unsigned char* begin, const unsigned char* end) {
  const auto align4 = [](size_t n) { return (n + 3) & ~size_t(3); };
  for (const unsigned char* p = begin; p + sizeof(ElfW(Nhdr)) <= end;) {
    ElfW(Nhdr) note;
    std::memcpy(&note, p, sizeof note);
    const unsigned char* name = p + sizeof note;
    const unsigned char* desc = name + align4(note.n_namesz);
    if (desc + note.n_descsz > end) break;
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0) {
      return hex_bytes(desc, note.n_descsz);
    }
    p = desc + align4(note.n_descsz);
  }
  return "";
}

// dl_iterate_phdr's callback: in the object whose loaded segments hold `code`, the build ID.
int look_in(struct dl_phdr_info* info, size_t, void* data) {
  Search& search = *static_cast<Search*>(data);
  bool ours = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && search.code >= start && search.code < start + ph.p_memsz)
      ours = true;
  }
  if (!ours) return 0;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum && search.id.empty(); ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const auto* notes = reinterpret_cast<const unsigned char*>(info->dlpi_addr + ph.p_vaddr);
    search.id = build_id_in(notes, notes + ph.p_memsz);
  }
  return 1;  // found our object: stop
}

}  // namespace

const std::string& build_id_hex() {
  static const std::string id = [] {
    Search search;
    search.code = reinterpret_cast<uintptr_t>(&look_in);
    dl_iterate_phdr(&look_in, &search);
    return search.id;
  }();
  return id;
}

}  // namespace npusim
