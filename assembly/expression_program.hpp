#pragma once
// ExpressionProgram: a muParser expression translated into a short program for a small stack
// machine, evaluated the same way on the host and on the device (evaluate_program below).
// The translation reads muParser's own optimised bytecode (constants already folded, x*a + b
// and x^2..x^4 fused), so a program is what muParser itself would run, minus the callbacks.
#include <cmath>
#include <cstdint>
#include <vector>

#include "linalg/host_device.hpp"

namespace gpufem {

/// Stack slots a program may need (a deeper expression is rejected when translated).
inline constexpr int expression_stack_limit = 64;

/// What one instruction does. Binary operators pop b, then a, and push a OP b; comparisons
/// and && / || push 1 or 0 (both operands are always evaluated, as in muParser).
enum class ExprOp : std::uint8_t {
    end,               ///< the value on top of the stack is the result
    value,             ///< push a
    variable,          ///< push variable arg (0 x, 1 y, 2 z)
    scaled_variable,   ///< push variable * a + b
    variable_squared,  ///< push v*v
    variable_cubed,    ///< push v*v*v
    variable_fourth,   ///< push v*v*v*v
    add, sub, mul, div, pow, lt, le, gt, ge, eq, ne, logical_and, logical_or,
    unary,             ///< top = function fn(top)
    binary,            ///< pop b; top = function fn(top, b)
    variadic,          ///< pop arg values, push function fn of them
    jump_if_zero,      ///< pop c; if c == 0 skip the next arg instructions (ternary "c ?")
    jump,              ///< skip the next arg instructions (ternary ":")
    no_op,             ///< end of a ternary
};

/// The functions a program calls (the names of each in expression.cpp's table).
enum class ExprFunction : std::uint8_t {
    sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh,
    log, log2, log10, exp, sqrt, abs, sign, rint, negate, identity,  // unary
    atan2,                                                          // binary
    sum, avg, min, max,                                             // variadic
};

/// One instruction (24 bytes; a program is read by every thread from the same address).
struct ExprInstruction {
    ExprOp op = ExprOp::end;
    ExprFunction fn = ExprFunction::identity;
    std::int16_t arg = 0;  ///< variable index, argument count or jump length
    double a = 0;          ///< value, or the factor of scaled_variable
    double b = 0;          ///< offset of scaled_variable
};

/// A translated expression: the instructions (ending with ExprOp::end) and what is known
/// about them.
struct ExpressionProgram {
    std::vector<ExprInstruction> code;
    int stack_depth = 0;    ///< slots needed (<= expression_stack_limit)
    bool constant = false;  ///< no variable is read: the value is constant_value
    double constant_value = 0;
};

/// fn applied to one value (the formulas are muParser's: asinh = log(v + sqrt(v*v + 1)),
/// rint = floor(v + 0.5), sign in {-1, 0, 1}, log2 = log(v) / log(2)).
GPUFEM_HOST_DEVICE inline double apply_unary(ExprFunction fn, double v)
{
    switch (fn) {
    case ExprFunction::sin: return ::sin(v);
    case ExprFunction::cos: return ::cos(v);
    case ExprFunction::tan: return ::tan(v);
    case ExprFunction::asin: return ::asin(v);
    case ExprFunction::acos: return ::acos(v);
    case ExprFunction::atan: return ::atan(v);
    case ExprFunction::sinh: return ::sinh(v);
    case ExprFunction::cosh: return ::cosh(v);
    case ExprFunction::tanh: return ::tanh(v);
    case ExprFunction::asinh: return ::log(v + ::sqrt(v * v + 1));
    case ExprFunction::acosh: return ::log(v + ::sqrt(v * v - 1));
    case ExprFunction::atanh: return 0.5 * ::log((1 + v) / (1 - v));
    case ExprFunction::log: return ::log(v);
    case ExprFunction::log2: return ::log(v) / ::log(2.0);
    case ExprFunction::log10: return ::log10(v);
    case ExprFunction::exp: return ::exp(v);
    case ExprFunction::sqrt: return ::sqrt(v);
    case ExprFunction::abs: return v >= 0 ? v : -v;
    case ExprFunction::sign: return v < 0 ? -1.0 : (v > 0 ? 1.0 : 0.0);
    case ExprFunction::rint: return ::floor(v + 0.5);
    case ExprFunction::negate: return -v;
    default: return v;  // identity (unary plus)
    }
}

/// fn of n values args[0..n) (sum and avg add left to right; min/max keep the first of equal
/// values, as muParser does).
GPUFEM_HOST_DEVICE inline double apply_variadic(ExprFunction fn, const double* args, int n)
{
    double r = args[0];
    for (int i = 1; i < n; ++i) {
        const double v = args[i];
        if (fn == ExprFunction::sum || fn == ExprFunction::avg) r += v;
        else if (fn == ExprFunction::min) r = v < r ? v : r;
        else r = r < v ? v : r;
    }
    return fn == ExprFunction::avg ? r / n : r;
}

/// The value of a program at (x, y, z). Host and device run this same function.
GPUFEM_HOST_DEVICE inline double evaluate_program(const ExprInstruction* code, double x, double y,
                                                  double z)
{
    double s[expression_stack_limit];
    int top = -1;
    for (int pc = 0;; ++pc) {
        const ExprInstruction in = code[pc];
        const double var = in.arg == 0 ? x : (in.arg == 1 ? y : z);
        switch (in.op) {
        case ExprOp::end: return s[top];
        case ExprOp::value: s[++top] = in.a; break;
        case ExprOp::variable: s[++top] = var; break;
        case ExprOp::scaled_variable: s[++top] = var * in.a + in.b; break;
        case ExprOp::variable_squared: s[++top] = var * var; break;
        case ExprOp::variable_cubed: s[++top] = var * var * var; break;
        case ExprOp::variable_fourth: s[++top] = var * var * var * var; break;
        case ExprOp::add: --top; s[top] = s[top] + s[top + 1]; break;
        case ExprOp::sub: --top; s[top] = s[top] - s[top + 1]; break;
        case ExprOp::mul: --top; s[top] = s[top] * s[top + 1]; break;
        case ExprOp::div: --top; s[top] = s[top] / s[top + 1]; break;
        case ExprOp::pow: --top; s[top] = ::pow(s[top], s[top + 1]); break;
        case ExprOp::lt: --top; s[top] = s[top] < s[top + 1]; break;
        case ExprOp::le: --top; s[top] = s[top] <= s[top + 1]; break;
        case ExprOp::gt: --top; s[top] = s[top] > s[top + 1]; break;
        case ExprOp::ge: --top; s[top] = s[top] >= s[top + 1]; break;
        case ExprOp::eq: --top; s[top] = s[top] == s[top + 1]; break;
        case ExprOp::ne: --top; s[top] = s[top] != s[top + 1]; break;
        case ExprOp::logical_and: --top; s[top] = s[top] != 0 && s[top + 1] != 0; break;
        case ExprOp::logical_or: --top; s[top] = s[top] != 0 || s[top + 1] != 0; break;
        case ExprOp::unary: s[top] = apply_unary(in.fn, s[top]); break;
        case ExprOp::binary: --top; s[top] = ::atan2(s[top], s[top + 1]); break;
        case ExprOp::variadic:
            top -= in.arg - 1;
            s[top] = apply_variadic(in.fn, &s[top], in.arg);
            break;
        case ExprOp::jump_if_zero:
            if (s[top--] == 0) pc += in.arg;
            break;
        case ExprOp::jump: pc += in.arg; break;
        default: break;  // no_op
        }
    }
}

/// d fn(v) / dv (0 where the function is piecewise constant: sign, rint; abs: sign(v)).
GPUFEM_HOST_DEVICE inline double unary_derivative(ExprFunction fn, double v)
{
    switch (fn) {
    case ExprFunction::sin: return ::cos(v);
    case ExprFunction::cos: return -::sin(v);
    case ExprFunction::tan: { const double c = ::cos(v); return 1.0 / (c * c); }
    case ExprFunction::asin: return 1.0 / ::sqrt(1 - v * v);
    case ExprFunction::acos: return -1.0 / ::sqrt(1 - v * v);
    case ExprFunction::atan: return 1.0 / (1 + v * v);
    case ExprFunction::sinh: return ::cosh(v);
    case ExprFunction::cosh: return ::sinh(v);
    case ExprFunction::tanh: { const double t = ::tanh(v); return 1 - t * t; }
    case ExprFunction::asinh: return 1.0 / ::sqrt(v * v + 1);
    case ExprFunction::acosh: return 1.0 / ::sqrt(v * v - 1);
    case ExprFunction::atanh: return 1.0 / (1 - v * v);
    case ExprFunction::log: return 1.0 / v;
    case ExprFunction::log2: return 1.0 / (v * ::log(2.0));
    case ExprFunction::log10: return 1.0 / (v * ::log(10.0));
    case ExprFunction::exp: return ::exp(v);
    case ExprFunction::sqrt: return 0.5 / ::sqrt(v);
    case ExprFunction::abs: return v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);
    case ExprFunction::sign:
    case ExprFunction::rint: return 0.0;
    case ExprFunction::negate: return -1.0;
    default: return 1.0;  // identity
    }
}

/// A value with its gradient in (x, y, z): forward-mode differentiation of a program.
struct ExprDual {
    double v;  // no default member initialisers: a stack of these is not written when declared
    double d[3];
};

/// The value of a program at (x, y, z) and its exact gradient (forward-mode differentiation
/// of every instruction, the same control flow as evaluate_program). Comparisons and logical
/// operators have gradient 0; a^b with a constant b is differentiated as b a^(b-1) a'. The top
/// of the stack stays in registers (`t`), the rest in `s`: a binary operation reads one
/// value and gradient from memory instead of two and writes none.
GPUFEM_HOST_DEVICE inline double evaluate_program_gradient(const ExprInstruction* code, double x,
                                                           double y, double z, double (&grad)[3])
{
    // The stack below the top, left unwritten until pushed to (zeroing its 64 slots, 2 KB of
    // local memory, at every call made the GPU's error integrals DRAM-bound).
    ExprDual s[expression_stack_limit];
    ExprDual t{};   // the top of the stack
    int depth = 0;  // values on the stack, t included
    const double at[3] = {x, y, z};
    const auto push = [&](double v, double factor, int axis) {
        if (depth > 0) s[depth - 1] = t;
        ++depth;
        t.v = v;
        for (int c = 0; c < 3; ++c) t.d[c] = c == axis ? factor : 0.0;
    };
    const auto constant = [&](double v) {
        t.v = v;
        t.d[0] = t.d[1] = t.d[2] = 0.0;
    };
    for (int pc = 0;; ++pc) {
        const ExprInstruction in = code[pc];
        const int axis = in.arg >= 0 && in.arg < 3 ? in.arg : 0;
        const double var = at[axis];
        if (in.op >= ExprOp::add && in.op <= ExprOp::logical_or) {
            // Binary: a (below) OP b (the top) -> the top.
            const ExprDual a = s[depth - 2], b = t;
            --depth;
            switch (in.op) {
            case ExprOp::add:
                t.v = a.v + b.v;
                for (int c = 0; c < 3; ++c) t.d[c] = a.d[c] + b.d[c];
                break;
            case ExprOp::sub:
                t.v = a.v - b.v;
                for (int c = 0; c < 3; ++c) t.d[c] = a.d[c] - b.d[c];
                break;
            case ExprOp::mul:
                t.v = a.v * b.v;
                for (int c = 0; c < 3; ++c) t.d[c] = a.d[c] * b.v + a.v * b.d[c];
                break;
            case ExprOp::div:
                t.v = a.v / b.v;
                for (int c = 0; c < 3; ++c) t.d[c] = (a.d[c] * b.v - a.v * b.d[c]) / (b.v * b.v);
                break;
            case ExprOp::pow:
                t.v = ::pow(a.v, b.v);
                for (int c = 0; c < 3; ++c)
                    t.d[c] = (b.d[c] == 0 ? 0.0 : t.v * ::log(a.v) * b.d[c]) +
                             (a.d[c] == 0 ? 0.0 : b.v * ::pow(a.v, b.v - 1) * a.d[c]);
                break;
            case ExprOp::lt: constant(a.v < b.v); break;
            case ExprOp::le: constant(a.v <= b.v); break;
            case ExprOp::gt: constant(a.v > b.v); break;
            case ExprOp::ge: constant(a.v >= b.v); break;
            case ExprOp::eq: constant(a.v == b.v); break;
            case ExprOp::ne: constant(a.v != b.v); break;
            case ExprOp::logical_and: constant(a.v != 0 && b.v != 0); break;
            default: constant(a.v != 0 || b.v != 0); break;  // logical_or
            }
            continue;
        }
        switch (in.op) {
        case ExprOp::end:
            for (int c = 0; c < 3; ++c) grad[c] = t.d[c];
            return t.v;
        case ExprOp::value: push(in.a, 0.0, -1); break;
        case ExprOp::variable: push(var, 1.0, axis); break;
        case ExprOp::scaled_variable: push(var * in.a + in.b, in.a, axis); break;
        case ExprOp::variable_squared: push(var * var, 2 * var, axis); break;
        case ExprOp::variable_cubed: push(var * var * var, 3 * var * var, axis); break;
        case ExprOp::variable_fourth: push(var * var * var * var, 4 * var * var * var, axis); break;
        case ExprOp::unary: {
            const double slope = unary_derivative(in.fn, t.v);
            for (int c = 0; c < 3; ++c) t.d[c] = t.d[c] == 0 ? 0.0 : slope * t.d[c];
            t.v = apply_unary(in.fn, t.v);
            break;
        }
        case ExprOp::binary: {  // atan2(a, b)
            const ExprDual a = s[depth - 2], b = t;
            --depth;
            const double r2 = a.v * a.v + b.v * b.v;
            for (int c = 0; c < 3; ++c)
                t.d[c] = a.d[c] == 0 && b.d[c] == 0 ? 0.0 : (b.v * a.d[c] - a.v * b.d[c]) / r2;
            t.v = ::atan2(a.v, b.v);
            break;
        }
        case ExprOp::variadic: {
            // The arguments: s[depth - n .. depth - 2] and t, in order.
            const int n = in.arg;
            ExprDual r = n > 1 ? s[depth - n] : t;
            for (int i = 1; i < n; ++i) {
                const ExprDual v = i < n - 1 ? s[depth - n + i] : t;
                if (in.fn == ExprFunction::sum || in.fn == ExprFunction::avg) {
                    r.v += v.v;
                    for (int c = 0; c < 3; ++c) r.d[c] += v.d[c];
                } else if (in.fn == ExprFunction::min ? v.v < r.v : r.v < v.v) {
                    r = v;
                }
            }
            if (in.fn == ExprFunction::avg) {
                r.v /= n;
                for (int c = 0; c < 3; ++c) r.d[c] /= n;
            }
            depth -= n - 1;
            t = r;
            break;
        }
        case ExprOp::jump_if_zero: {
            const double c = t.v;
            --depth;
            if (depth > 0) t = s[depth - 1];
            if (c == 0) pc += in.arg;
            break;
        }
        case ExprOp::jump: pc += in.arg; break;
        default: break;  // no_op
        }
    }
}

}  // namespace gpufem
