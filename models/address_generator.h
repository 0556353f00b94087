// The seed 001 address-generation state machine: configured once by an init
// record, it streams, fetch by fetch, the DRAM addresses of the unrolled
// convolution matrix (im2col rows, or the MEC lowered matrix) straight from
// the original NHWC or NCHW input, so the unrolled matrix is never materialised.
// Padding elements come out as kPadding and are inserted by the datapath as
// zeros. A second generator gives the store path the output addresses in
// NHWC, NCHW or the packed N(C/b)HWb layout of seed 000.
//
// Pure C++ (no SystemC). Its users are all in models/: the load and store
// engines configure it from the layer's AGU_INIT registers
// (models/layer_addressing.h), the compute engine over its input tile
// (tile_lowering). The compiler only emits the AGU_INIT instructions
// (registers: agu_registers in sim/program/program.h) and never calls it.
// Per engine:
//  - the load engine: AGU_INIT validates the layer's init record (not for
//    graph operators, whose general geometry the config parser checks); in
//    functional runs it copies NCHW input rows with input_element and the
//    host lowering of host_im2col / mec walks fetch (kIm2col / kMec) to
//    write the lowered matrix. Every other input load bypasses it: NHWC rows
//    (im2col, the default, graph operators included; also column pieces, and
//    kernel parts and input channel tiles, a run per pixel) are copied at
//    direct offsets, binary layers' packed rows likewise, and host_im2col /
//    mec loads read the lowered matrix at direct offsets. Load timing comes
//    from row and run counts, not from the generator;
//  - the compute engine (models/operand_fetch.h, fetch_runs): in functional
//    runs, the fetch stream over the input tile of plain int8 layers on the
//    lockstep array, in all three access modes; graph operators, binary layers
//    and the broadcast dataflow read the tile in place;
//  - the store engine: in functional runs OutputAddressGenerator places every
//    output element of plain and binary layers; graph operators store NHWC at
//    direct addresses.
// The unit tests compare it index by index with a materialised reference
// (lowering_footprint is used there only). Formulas, which loads use it and
// the patent's worked example: docs/address-generator.md.
#pragma once

#include <cstdint>
#include <vector>

namespace npusim {

// How the input lies in memory: NHWC (the components of a position are
// contiguous) or NCHW (one H x W plane per component).
enum class InputLayout { kNhwc, kNchw };

// The initialisation instruction(s) of the state machine.
struct AddressGeneratorInit {
  uint32_t input_w = 0;     // input x size
  uint32_t input_h = 0;     // input y size
  uint32_t channels = 0;    // components per (y, x) position
  uint64_t input_base = 0;  // byte address of element (y 0, x 0, c 0)
  // Memory stride in bytes between input rows (of one plane in NCHW); 0 =
  // dense: W*C components (NHWC) or W (NCHW). NCHW planes are H rows apart.
  uint64_t row_stride = 0;
  InputLayout input_layout = InputLayout::kNhwc;
  uint32_t element_bits = 8;  // component depth; 1..64, sub-byte widths bit-addressed
  uint32_t filters = 0;       // number of filters K (output channels)
  uint32_t filter_w = 0;      // filter x size S
  uint32_t filter_h = 0;      // filter y size R
  uint32_t stride = 1;        // output step in y, and in x unless stride_x is set
  // Output step in x when it differs from y's (0: `stride`). The compute
  // engine's view of a MEC tile steps S positions per output column
  // (docs/address-generator.md#the-compute-engines-fetch-stream).
  uint32_t stride_x = 0;
  uint32_t padding = 0;       // zero border, same on all four sides
  uint64_t output_base = 0;   // byte address of the first output element
  uint32_t output_bits = 32;  // output element width (NHWC / NCHW; packed is 1 bit)
};

// Cycles an AGU_INIT takes: one register written per cycle (docs/address-generator.md).
inline uint64_t agu_init_cycles(uint64_t registers) { return registers; }

// Throws std::invalid_argument on a zero size, a filter larger than the
// padded input, an element width outside 1..64, or a row stride smaller than
// one dense row.
void validate(const AddressGeneratorInit& init);

uint32_t output_width(const AddressGeneratorInit& init);
uint32_t output_height(const AddressGeneratorInit& init);

// Where one element lives: a byte address plus, for widths under 8 bits, the
// bit offset inside that byte. byte == kPadding marks a padding element.
struct ElementAddress {
  static constexpr int64_t kPadding = -1;
  int64_t byte = kPadding;
  uint32_t bit = 0;
  bool is_padding() const { return byte == kPadding; }
  bool operator==(const ElementAddress& o) const { return byte == o.byte && bit == o.bit; }
};

// A run of consecutive lowered-matrix entries that lie at consecutive
// addresses (or are all padding): what one fetch_ml burst moves.
struct AddressRun {
  ElementAddress start;
  uint32_t length = 0;
};

enum class LoweringKind {
  kIm2col,  // one row per output (oy, ox): the R x S x C patch, order (ky, kx, c)
  kMec,     // one row per output column ox: the Hp x S x C strip, order (h, kx, c)
};

// Streams the lowered matrix row-major. The counters are the only state; each
// fetch advances them with carries, like the hardware's nested loop counters.
class InputAddressGenerator {
 public:
  InputAddressGenerator(const AddressGeneratorInit& init, LoweringKind kind);

  // fetch_ml: up to `count` next addresses (fewer at the end of the matrix).
  std::vector<ElementAddress> fetch(uint32_t count);
  // The same `count` entries as runs (appended to `runs`): one run covers a
  // stretch of (kx, c) inside one filter row whose addresses follow each other
  // (NHWC), or is padding throughout. NCHW entries come one per run.
  void fetch_runs(uint64_t count, std::vector<AddressRun>& runs);
  bool done() const { return done_; }
  void restart();
  // Jump to entry `element` of the row-major matrix (the next fetch starts
  // there): how a piece of the matrix is streamed without the ones before it.
  void seek(uint64_t element);

  // Shape of the lowered matrix this generator walks.
  uint64_t rows() const;
  uint64_t columns() const;
  uint64_t elements() const { return rows() * columns(); }
  // Of those, how many are padding (never fetched from DRAM).
  uint64_t padding_elements() const;
  // Where input element (y, x, c) lies (y, x inside the input): the one
  // layout formula, shared with the load engine's functional copy.
  ElementAddress input_element(uint32_t y, uint32_t x, uint32_t c) const;

 private:
  ElementAddress current() const;
  void advance();
  // After the last (kx, c) of a filter row: on to the next filter row, pixel, ...
  void carry_filter_row();
  // Entries from the current one that form one run (>= 1, inside the filter row).
  uint32_t run_length() const;
  uint32_t stride_x() const { return init_.stride_x != 0 ? init_.stride_x : init_.stride; }

  AddressGeneratorInit init_;
  LoweringKind kind_;
  uint64_t row_stride_bits_;
  // Counters, outermost first. im2col: oy, ox, ky, kx, c. MEC: ox, h, kx, c
  // (oy_ stays 0 and h_ plays the role of ky_ over the whole padded height).
  uint32_t oy_ = 0, ox_ = 0, ky_ = 0, kx_ = 0, c_ = 0;
  bool done_ = false;
};

// The unrolled-matrix sizes of one layer, in elements, for the traffic
// model and the report (per image; padding excluded where it is not stored).
struct LoweringFootprint {
  uint64_t input_elements;   // H * W * C, what im2col-on-the-fly fetches
  uint64_t im2col_elements;  // OH*OW x R*S*C, what the host materialises
  uint64_t mec_elements;     // OW x Hp*S*C
};
LoweringFootprint lowering_footprint(const AddressGeneratorInit& init);

enum class OutputLayout { kNhwc, kNchw, kPacked32, kPacked64 };

// Output addresses for the store path. Packed layouts (binary outputs, one
// bit per element) address word (n, c/b, h, w) and bit c % b inside it;
// words are b/8 bytes, little-endian, so the bit is given within its byte.
class OutputAddressGenerator {
 public:
  OutputAddressGenerator(const AddressGeneratorInit& init, OutputLayout layout);

  ElementAddress address(uint32_t n, uint32_t h, uint32_t w, uint32_t c) const;
  // Bits from channel c to c + 1 of one pixel in the unpacked layouts (NHWC:
  // the element width; NCHW: a plane), so a store walks a pixel's channels by
  // adding it; 0 for packed layouts, whose channels are bits of words.
  uint64_t channel_step_bits() const;
  // The addresses in the datapath's production order for image n: (h, w, c).
  std::vector<ElementAddress> stream(uint32_t n) const;

 private:
  AddressGeneratorInit init_;
  OutputLayout layout_;
  uint32_t out_h_, out_w_;
};

}  // namespace npusim
