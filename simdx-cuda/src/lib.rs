//! simdx-cuda: the CUDA backend — NVRTC compilation to CUBIN, the device graph, the kernels, the
//! online and ballot filters, push-pull fusion and the grid barrier. It runs any program through
//! simdx-core's traits; until those exist this crate exports nothing.
