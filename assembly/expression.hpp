#pragma once
// Expression: a scalar function of x, y, z given as text (muParser), evaluated on the host.
#include <memory>
#include <span>
#include <string>

#include "assembly/expression_program.hpp"

namespace gpufem {

/// A compiled scalar expression of x, y, z, e.g. "sin(pi*x)*sin(pi*y)" or "1 + x^2".
/// Constants pi and e (and muParser's _pi, _e) are defined; the functions are muParser's
/// built-in set (sin, cos, tan, asin, acos, atan, atan2, sinh, cosh, tanh, asinh, acosh, atanh,
/// exp, log = ln, log2, log10, sqrt, abs, sign, rint, and the variadic min, max, sum, avg),
/// defined by us with muParser's formulas so that the expression also translates into an
/// ExpressionProgram the device runs (program()); operators + - * / ^, comparisons, && ||
/// and "c ? a : b".
/// Not thread-safe: evaluation writes the object's x, y, z and muParser's stack, so one object
/// must not be evaluated from several threads at once (give each thread its own Expression).
/// A moved-from Expression may only be assigned to or destroyed.
class Expression {
public:
    /// Compiles the text; throws std::invalid_argument with muParser's message (and the
    /// position) on a syntax error, an unknown variable or an unknown function.
    explicit Expression(std::string text);
    ~Expression();
    Expression(Expression&&) noexcept;
    Expression& operator=(Expression&&) noexcept;

    const std::string& text() const { return text_; }
    /// True if the value does not depend on x, y or z.
    bool is_constant() const { return constant_; }
    /// The value at one point.
    double evaluate(double x, double y, double z) const;
    /// The same expression as a program for evaluate_program (host or device).
    const ExpressionProgram& program() const { return program_; }
    /// Bulk evaluation: xyz holds 3 coordinates per point, out one value per point.
    void evaluate(std::span<const double> xyz, std::span<double> out) const;

private:
    struct Impl;
    std::string text_;
    bool constant_ = false;
    ExpressionProgram program_;
    std::unique_ptr<Impl> impl_;
};

}  // namespace gpufem
