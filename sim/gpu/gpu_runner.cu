// Device query, device memory, and the timing loop around the kernels.
// Timing: one warm-up launch, then `repeats` launches each bracketed by two
// cudaEvents on the default stream; the median of their elapsed times is the
// kernel time. Each block also records clock64() from its first to its last
// statement; the last launch's per-block cycles are reported (max and mean).
#include <cuda_runtime.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "sim/gpu/cuda_status.h"
#include "sim/gpu/gpu_runner.h"
#include "sim/gpu/kernel_launch.h"

namespace npusim::gpu {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess)
    throw GpuError(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Device memory that frees itself.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) : bytes_(bytes) {
    check(cudaMalloc(&ptr_, std::max<size_t>(bytes, 1)), "cudaMalloc");
  }
  template <typename T>
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size() * sizeof(T)) {
    check(cudaMemcpy(ptr_, host.data(), bytes_, cudaMemcpyHostToDevice), "cudaMemcpy to device");
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  template <typename T>
  std::vector<T> read(size_t count) const {
    std::vector<T> host(count);
    check(cudaMemcpy(host.data(), ptr_, count * sizeof(T), cudaMemcpyDeviceToHost),
          "cudaMemcpy to host");
    return host;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

int attribute(cudaDeviceAttr a, int device) {
  int v = 0;
  check(cudaDeviceGetAttribute(&v, a, device), "cudaDeviceGetAttribute");
  return v;
}

// Launches `launch` once to warm up, then `repeats` times between events.
template <typename Launch>
KernelTiming time_kernel(const TilingPlan& plan, int repeats, Launch launch,
                         const DeviceBuffer& cycles) {
  if (repeats < 1) throw GpuError("repeats must be >= 1");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  KernelTiming t;
  t.kind = plan.kind;
  t.plan = plan.describe();
  check(cudaError_t(launch()), "kernel launch");
  check(cudaDeviceSynchronize(), "warm-up kernel");
  for (int i = 0; i < repeats; ++i) {
    check(cudaEventRecord(start), "cudaEventRecord");
    check(cudaError_t(launch()), "kernel launch");
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "kernel");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    t.times_ms.push_back(ms);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  t.median_ms = median(t.times_ms);
  t.blocks = plan.blocks();
  const std::vector<unsigned long long> c = cycles.read<unsigned long long>(t.blocks);
  t.max_block_cycles = c.empty() ? 0 : *std::max_element(c.begin(), c.end());
  t.mean_block_cycles =
      c.empty() ? 0 : double(std::accumulate(c.begin(), c.end(), 0.0)) / double(c.size());
  return t;
}

template <typename Word>
std::vector<Word> words_as(const PackedTensor& t) {
  return std::vector<Word>(t.words.begin(), t.words.end());
}

template <typename Word>
BinaryRun binary_run(const DeviceInfo& device, const PackedTensor& input,
                     const PackedTensor& weights, const ConvShape& shape, const BinaryParams& p,
                     int repeats) {
  TilingPlan plan = plan_tiling(KernelKind::Binary, shape, p.bits, device.limits);
  plan.geometry.pad_mode = p.pad_mode;  // the plan knows shapes; the layer gives the pad mode
  BinaryRun r;
  r.output.n = shape.n, r.output.c = shape.k, r.output.h = shape.out_h();
  r.output.w = shape.out_w(), r.output.bits = p.bits;
  const size_t out_words = size_t(r.output.n) * r.output.groups() * r.output.h * r.output.w;
  const DeviceBuffer in(words_as<Word>(input)), w(words_as<Word>(weights));
  const DeviceBuffer thr(p.threshold), flip(p.flip);
  const DeviceBuffer out(out_words * sizeof(Word)), cycles(plan.blocks() * 8);
  BinaryKernelArgs a;
  a.input = in.as<void>(), a.weights = w.as<void>();
  a.threshold = thr.as<int32_t>(), a.flip = flip.as<uint8_t>();
  a.output = out.as<void>(), a.block_cycles = cycles.as<unsigned long long>();
  r.timing = time_kernel(
      plan, repeats, [&] { return launch_binary_conv(plan, a); }, cycles);
  const std::vector<Word> words = out.read<Word>(out_words);
  r.output.words.assign(words.begin(), words.end());
  return r;
}

template <typename T>
DirectKernelArgs direct_args(const DeviceBuffer& in, const DeviceBuffer& w,
                             const DeviceBuffer& cycles) {
  DirectKernelArgs a;
  a.input = in.as<void>(), a.weights = w.as<void>();
  a.block_cycles = cycles.as<unsigned long long>();
  return a;
}

}  // namespace

bool cuda_built() { return true; }

int cuda_device_count(std::string& error) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    error = explain_no_device(cudaGetErrorString(e), e == cudaErrorInsufficientDriver,
                              nvidia_driver_loaded());
    return 0;
  }
  if (count == 0)
    error = explain_no_device(cudaGetErrorString(cudaErrorNoDevice), false, nvidia_driver_loaded());
  return count;
}

DeviceInfo open_device(int index) {
  check(cudaSetDevice(index), "cudaSetDevice");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties");
  DeviceInfo d;
  d.index = index;
  d.name = prop.name;
  d.compute_major = prop.major, d.compute_minor = prop.minor;
  d.sm_count = attribute(cudaDevAttrMultiProcessorCount, index);
  d.sm_clock_khz = attribute(cudaDevAttrClockRate, index);
  d.limits.shared_bytes_per_block =
      uint64_t(attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, index));
  d.limits.registers_per_block = uint32_t(attribute(cudaDevAttrMaxRegistersPerBlock, index));
  // No attribute gives the per-thread register limit; it is 255 on every
  // architecture CUDA 13 supports (the programming guide's limits table).
  d.limits.registers_per_thread = 255;
  d.limits.max_threads_per_block = uint32_t(attribute(cudaDevAttrMaxThreadsPerBlock, index));
  d.limits.warp_size = uint32_t(attribute(cudaDevAttrWarpSize, index));
  d.limits.max_grid_y = uint32_t(attribute(cudaDevAttrMaxGridDimY, index));
  d.limits.max_grid_z = uint32_t(attribute(cudaDevAttrMaxGridDimZ, index));
  // Tiling rule 5 (fill the device).
  d.limits.resident_warps = uint64_t(d.sm_count) *
                            uint64_t(attribute(cudaDevAttrMaxThreadsPerMultiProcessor, index)) /
                            uint64_t(d.limits.warp_size);
  return d;
}

BinaryRun gpu_binary_conv(const DeviceInfo& device, const PackedTensor& input,
                          const PackedTensor& weights, const ConvShape& shape,
                          const BinaryParams& p, int repeats) {
  if (input.bits != p.bits || weights.bits != p.bits)
    throw GpuError("binary conv: input, weights and parameters must use the same bits");
  return p.bits == 64 ? binary_run<uint64_t>(device, input, weights, shape, p, repeats)
                      : binary_run<uint32_t>(device, input, weights, shape, p, repeats);
}

Int8Run gpu_int8_conv(const DeviceInfo& device, const TensorI8& input, const TensorI8& weights,
                      const ConvShape& shape, const DirectParams& p, int repeats) {
  const TilingPlan plan = plan_tiling(KernelKind::Int8, shape, 32, device.limits);
  Int8Run r;
  r.output = TensorI8({shape.n, shape.out_h(), shape.out_w(), shape.k});
  const DeviceBuffer in(input.data), w(weights.data);
  const bool req = p.epilogue == DirectEpilogue::Requantize;
  const std::vector<int32_t> none(shape.k, 0);
  const std::vector<uint8_t> no_flip(shape.k, 0);
  const DeviceBuffer bias(req ? p.bias : none), scale(req ? p.scale : none);
  const DeviceBuffer thr(req ? none : p.threshold), flip(req ? no_flip : p.flip);
  const DeviceBuffer out(r.output.data.size()), cycles(plan.blocks() * 8);
  DirectKernelArgs a = direct_args<int8_t>(in, w, cycles);
  a.epilogue = p.epilogue, a.pad_value = float(p.pad_value), a.relu = p.relu, a.shift = p.shift;
  a.bias = bias.as<int32_t>(), a.scale = scale.as<int32_t>();
  a.threshold = thr.as<int32_t>(), a.flip = flip.as<uint8_t>();
  a.output_int8 = out.as<int8_t>();
  r.timing = time_kernel(
      plan, repeats, [&] { return launch_int8_conv(plan, a); }, cycles);
  r.output.data = out.read<int8_t>(r.output.data.size());
  return r;
}

FloatRun gpu_float_conv(const DeviceInfo& device, const TensorI8& input, const TensorI8& weights,
                        const ConvShape& shape, int8_t pad_value, int repeats) {
  const TilingPlan plan = plan_tiling(KernelKind::Float, shape, 32, device.limits);
  FloatRun r;
  const size_t outputs = size_t(shape.n) * shape.out_h() * shape.out_w() * shape.k;
  const DeviceBuffer in(std::vector<float>(input.data.begin(), input.data.end()));
  const DeviceBuffer w(std::vector<float>(weights.data.begin(), weights.data.end()));
  const DeviceBuffer out(outputs * sizeof(float)), cycles(plan.blocks() * 8);
  DirectKernelArgs a = direct_args<float>(in, w, cycles);
  a.epilogue = DirectEpilogue::Raw, a.pad_value = float(pad_value);
  a.output_float = out.as<float>();
  r.timing = time_kernel(
      plan, repeats, [&] { return launch_float_conv(plan, a); }, cycles);
  r.sums = out.read<float>(outputs);
  return r;
}

}  // namespace npusim::gpu
