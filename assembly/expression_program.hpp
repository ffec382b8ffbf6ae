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

}  // namespace gpufem
