#pragma once
// The reduction operator of the error maxima (CUB's DeviceReduce::Reduce): the larger
// magnitude, NaN winning (so a NaN error is reported, not hidden).

namespace gpufem::kernels::cuda {

/// max(|a|, |b|), NaN if either is.
struct AbsMax {
    __device__ double operator()(double a, double b) const
    {
        a = fabs(a), b = fabs(b);
        if (a != a) return a;
        if (b != b) return b;
        return a < b ? b : a;
    }
};

}  // namespace gpufem::kernels::cuda
