#pragma once
// Several double sums reduced together by one CUB block reduction (the merged and the resident
// solver kernels).

namespace gpufem::kernels::cuda {

/// K running sums reduced together.
template <int K>
struct Sums {
    double v[K];
    __device__ Sums operator+(const Sums& o) const
    {
        Sums r;
        for (int k = 0; k < K; ++k) r.v[k] = v[k] + o.v[k];
        return r;
    }
};

/// a + b, for cub::BlockReduce::Reduce.
struct SumOp {
    template <typename T>
    __device__ T operator()(const T& a, const T& b) const
    {
        return a + b;
    }
};

}  // namespace gpufem::kernels::cuda
