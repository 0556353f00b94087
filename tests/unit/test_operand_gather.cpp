// The operand gather (models/operand_gather.h): which bytes of batch_matmul's second operand a
// stage of kernels fetches over the bus, which it reads from the cache's key-value region, and
// which it copies on chip, for grouped-query attention (4 query heads over 2 kv heads) with the
// tokens split between a block in DRAM and a block placed in the cache. Figures worked by hand.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "models/operand_gather.h"

namespace {

// A DRAM image only: byte a holds a % 100 (the gather reads nothing else).
class ImageOnlyDram : public npusim::DramIf {
 public:
  ImageOnlyDram() : bytes_(8192) {
    for (size_t a = 0; a < bytes_.size(); ++a) bytes_[a] = int8_t(a % 100);
  }
  int8_t* image(uint64_t address, uint64_t bytes) override {
    REQUIRE(address + bytes <= bytes_.size());
    return bytes_.data() + address;
  }
  npusim::Grant transfer(uint32_t, bool, const npusim::DramAccess&) override {
    throw std::logic_error("the gather moves nothing");
  }
  uint64_t latency_cycles() const override { return 0; }
  void rows_stored(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint32_t, uint64_t) override {}
  void require_rows_stored(const npusim::StageName&, uint32_t, npusim::GlobalRows) override {}

 private:
  std::vector<int8_t> bytes_;
};

// Operators 0 (in DRAM) and 1 (placed in the key-value region) store the two blocks of tokens;
// operator 2 is the batch_matmul: 2 images, 4 query heads over 2 kv heads of 3 channels, so a
// token row is 6 bytes; per image 3 tokens in block A at 1000 and 2 in block B at 5000.
// Token j of image 1: A's row at 1000 + (3 + j) * 6 = 1018 + 6j (j < 3), B's at
// 5000 + (2 + j - 3) * 6 = 5012 + 6(j - 3).
npusim::Program gqa_attention(bool scores) {
  npusim::Program p;
  p.layers.resize(3);
  p.layers[1].output_on_chip = true;
  npusim::LayerDescriptor& L = p.layers[2];
  L.op = npusim::OpKind::BatchMatMul;
  L.N = 2;
  L.seq.heads = 4;
  L.seq.kv_heads = 2;
  L.seq.transpose_b = scores;
  L.conv_groups = 4;
  // Scores: a kernel per key (5 per head), 3 coefficients (a key row's head part).
  // Context: a kernel per value channel (3 per head), 5 coefficients (the tokens).
  L.K = scores ? 20 : 12;
  L.C = scores ? 12 : 20;
  L.more_inputs = {{1000, 0, 6, 6}, {5000, 1, 6, 4}};
  return p;
}

}  // namespace

TEST_CASE(
    "operand gather: a scores tile fetches each kv head's key rows once, those in the key-value "
    "region from the cache, and copies them for the second query head of the group",
    "[gather]") {
  const npusim::Program p = gqa_attention(true);
  SECTION("the whole tile in one stage") {
    const npusim::OperandGather gather(p, p.layers[2], 1, 0);
    CHECK(gather.coefficients() == 3);
    // Heads 0 and 2 fetch (heads 1 and 3 copy them): per head 3 key rows over the bus, 2 from the
    // cache, 3 bytes each. Timed from head 0's first key row, kv head 0: 1018, 6 runs, 6 apart.
    const npusim::GatherStage s = gather.stage(0, 20);
    CHECK(s.bus_bytes == 2 * 3 * 3);
    CHECK(s.chip_bytes == 2 * 2 * 3);
    CHECK(s.access.address == 1018);
    CHECK(s.access.segments == 6);
    CHECK(s.access.segment_bytes == 3);
    CHECK(s.access.stride == 6);
  }
  SECTION("a tile that starts inside the second head of a group") {
    // Kernels 7..11: head 1's keys 2, 3, 4 (head 0's are not in this tile: fetched) and head 2's
    // keys 0, 1. Over the bus: key 2 of head 1 and keys 0, 1 of head 2; keys 3 and 4 from the
    // cache. Timed from key 2 of kv head 0: 1018 + 12.
    const npusim::OperandGather gather(p, p.layers[2], 1, 7);
    const npusim::GatherStage s = gather.stage(7, 12);
    CHECK(s.bus_bytes == 3 * 3);
    CHECK(s.chip_bytes == 2 * 3);
    CHECK(s.access.address == 1030);
    CHECK(s.access.segments == 3);
  }
  SECTION("a kernel's coefficients are its key row's run of its kv head's channels") {
    const npusim::OperandGather gather(p, p.layers[2], 1, 0);
    ImageOnlyDram dram;
    std::vector<int8_t> row(3);
    // Kernel 12: head 2 (kv head 1: channels 3..5), key 2 (block A): 1018 + 12 + 3 = 1033.
    gather.copy_kernel(dram, 12, row.data());
    CHECK(row == std::vector<int8_t>{33, 34, 35});
    // Kernel 8: head 1 (kv head 0), key 3 (block B's first row): 5012 -> 12, 13, 14.
    gather.copy_kernel(dram, 8, row.data());
    CHECK(row == std::vector<int8_t>{12, 13, 14});
  }
}

TEST_CASE(
    "operand gather: a context tile fetches each kv head's value columns as one run per token row "
    "in DRAM and reads the tokens in the key-value region from the cache",
    "[gather]") {
  const npusim::Program p = gqa_attention(false);
  const npusim::OperandGather gather(p, p.layers[2], 1, 0);
  CHECK(gather.coefficients() == 5);
  // Heads 0 and 2 fetch their 3 value columns: each column's 3 tokens in DRAM over the bus and
  // its 2 in the key-value region from the cache. The 3 columns of a head are one run of 3 bytes
  // per DRAM token row: 2 heads x 3 rows = 6 runs, 6 bytes apart, from 1018.
  const npusim::GatherStage s = gather.stage(0, 12);
  CHECK(s.bus_bytes == 2 * 3 * 3);
  CHECK(s.chip_bytes == 2 * 3 * 2);
  CHECK(s.access.address == 1018);
  CHECK(s.access.segments == 6);
  CHECK(s.access.segment_bytes == 3);
  CHECK(s.access.stride == 6);
  // Kernel 7: head 2 (kv head 1), value channel 1: column 4 of every token row, image 1:
  // 1022, 1028, 1034, 5016, 5022.
  ImageOnlyDram dram;
  std::vector<int8_t> row(5);
  gather.copy_kernel(dram, 7, row.data());
  CHECK(row == std::vector<int8_t>{22, 28, 34, 16, 22});
}
