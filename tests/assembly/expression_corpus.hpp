#pragma once
// Expressions that together use every operator, function, constant and form of the ternary the
// case reference lists, with stock muParser (its own built-in functions) as the oracle, and random
// points to evaluate them at.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <muParser.h>

namespace gpufem::test {

/// The corpus (arguments shifted where a function needs a domain: points are in [-1, 1]^3).
inline const std::vector<std::string>& expression_corpus()
{
    static const std::vector<std::string> corpus = {
        "sin(x)", "cos(y)", "tan(z)", "asin(x)", "acos(y)", "atan(z)", "atan2(y, x)",
        "sinh(x)", "cosh(y)", "tanh(z)", "asinh(x)", "acosh(1.5 + y)", "atanh(0.9 * z)",
        "log(1.5 + x)", "ln(2 + y)", "log2(1.1 + z)", "log10(3 + x*y)", "exp(x*y)",
        "sqrt(1 + x)", "abs(x - y)", "sign(x)", "sign(0)", "rint(3*x)", "-x^2", "-2^2 + x",
        "x^-1", "2^x", "(1.5 + x)^y", "x^2 + y^3 + z^4", "3*x + 2", "x/y", "-x", "+y", "-(-z)",
        "x < y", "x <= y", "x > y", "x >= y", "x == x", "x != y", "x < 0 && y < 0",
        "x < 0 || y < 0", "x < 0 ? 1 : 2", "x < 0 ? (y < 0 ? 1 : 2) : (z < 0 ? 3 : 4)",
        "x < 0 ? y < 0 ? 1 : 2 : 3", "(x > 0 ? x : -x) + (y > 0 ? 2*y : sin(y))",
        "min(x, y, z)", "max(x, y)", "min(x)", "sum(x, y, z, 1)", "avg(x, y)",
        "1 + x*y*z", "pi*x", "e^x", "_pi + _e", "2*pi + 1", "7",
        "sin(pi*x)*sin(pi*y) + x^2*exp(-y)", "((x + 1)*(y + 2))/((z + 3)*(x + 4))",
        "1 + x*(1 + y*(1 + z*(1 + x*(1 + y*(1 + z*(1 + x))))))",
        "exp(-((x - 0.5)^2 + (y - 0.5)^2) / 0.01) * 100",
        "1 + 10*(x > 0.5) * (y < 0.25)", "x*x*x*x*x - 3*x*x*y + z*z*z",
        "max(1e-3, 1 + 0.5*sin(2*pi*x)*cos(2*pi*y))", "atan2(x*y, z + 2) * sqrt(x^2 + y^2)"};
    return corpus;
}

/// Stock muParser (built-in functions, unchanged) with x, y, z, pi, e: the oracle.
class StockParser {
public:
    explicit StockParser(const std::string& text)
    {
        parser_.DefineVar("x", &x_);
        parser_.DefineVar("y", &y_);
        parser_.DefineVar("z", &z_);
        parser_.DefineConst("pi", 3.14159265358979323846);
        parser_.DefineConst("e", 2.71828182845904523536);
        parser_.SetExpr(text);
    }
    double operator()(double x, double y, double z)
    {
        x_ = x, y_ = y, z_ = z;
        return parser_.Eval();
    }

private:
    mu::Parser parser_;
    double x_ = 0, y_ = 0, z_ = 0;
};

/// n random points in [-1, 1]^3 (3 per point), plus the corners and the origin.
inline std::vector<double> random_points(std::size_t n, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> dist(-1.0, 1.0);
    std::vector<double> xyz;
    for (double x : {-1.0, 0.0, 1.0})
        for (double y : {-1.0, 0.0, 1.0})
            for (double z : {-1.0, 0.0, 1.0}) xyz.insert(xyz.end(), {x, y, z});
    for (std::size_t i = 0; i < 3 * n; ++i) xyz.push_back(dist(rng));
    return xyz;
}

/// a and b agree to 1e-14 relative (plus 1e-15 absolute for values that cancel to ~0), or
/// are both NaN.
inline bool agree(double a, double b)
{
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    return std::abs(a - b) <= 1e-14 * std::abs(b) + 1e-15;
}

}  // namespace gpufem::test
