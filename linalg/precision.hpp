#pragma once
// Vectors and matrices between double and single precision, on their executor: a
// preconditioner that cycles in float inside a double solver converts its input and output
// with these, and its levels' matrices once at setup.
#include <cstddef>
#include <type_traits>

#include "linalg/array.hpp"
#include "linalg/backend_kernels.hpp"
#include "linalg/csr.hpp"

namespace gpufem {

#define GPUFEM_KERNEL_LIST "linalg/precision_kernel_list.hpp"
#include "linalg/declare_kernels.hpp"

/// y = x rounded to float (y, on x's backend, made anew on x's executor when its size differs).
void round_into(const Array<double>& x, Array<float>& y);

/// y = x in double (y, on x's backend, made anew on x's executor when its size differs).
void widen_into(const Array<float>& x, Array<double>& y);

/// a with its values rounded to float (its pattern copied), on a's executor.
Csr<float> rounded_to_float(const Csr<double>& a);

/// A copy of from on its executor with values of type V (rounded to float, widened to double,
/// or copied as they are); empty when from is.
template <typename V, typename W>
Array<V> converted(const Array<W>& from)
{
    if (from.empty()) return Array<V>();
    if constexpr (std::is_same_v<V, W>) {
        return from.clone_to(from.executor());
    } else {
        Array<V> out;
        if constexpr (std::is_same_v<V, float>) round_into(from, out);
        else widen_into(from, out);
        return out;
    }
}

}  // namespace gpufem
