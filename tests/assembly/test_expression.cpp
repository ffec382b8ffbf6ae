// Expression: values against std:: math, constants, is_constant, bulk evaluation, errors.
#include <cmath>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "assembly/expression.hpp"

namespace {

using gpufem::Expression;
using std::numbers::pi;

/// The message of the std::invalid_argument that compiling text throws ("" if none).
std::string compile_error(const std::string& text)
{
    try {
        Expression expression(text);
    } catch (const std::invalid_argument& error) {
        return error.what();
    }
    return "";
}

TEST(Expression, ValuesMatchStdMath)
{
    const double x = 0.3, y = -0.7, z = 1.9;
    struct Case {
        const char* text;
        double expected;
    };
    const Case cases[] = {
        {"sin(pi*x)*sin(pi*y)", std::sin(pi * x) * std::sin(pi * y)},
        {"1 + x^2 + y^2 + z^2", 1 + x * x + y * y + z * z},
        {"exp(-x*y) * cos(2*z)", std::exp(-x * y) * std::cos(2 * z)},
        {"sqrt(abs(y)) + log(z) - log10(z)", std::sqrt(std::abs(y)) + std::log(z) - std::log10(z)},
        {"tanh(x) + atan(y) + sinh(z)", std::tanh(x) + std::atan(y) + std::sinh(z)},
        {"min(x, y) + max(y, z)", std::min(x, y) + std::max(y, z)},
        {"x < 0.5 ? 1 : 2", 1.0},
        {"x^3 - 2*x*y/z", x * x * x - 2 * x * y / z},
        {"1.5e-3*x", 1.5e-3 * x},
        {"2*e^x", 2 * std::exp(x)},
    };
    for (const Case& c : cases) {
        Expression expression(c.text);
        EXPECT_NEAR(expression.evaluate(x, y, z), c.expected, 1e-14 * (1 + std::abs(c.expected)))
            << c.text;
        EXPECT_EQ(expression.text(), c.text);
    }
}

TEST(Expression, Constants)
{
    EXPECT_DOUBLE_EQ(Expression("pi").evaluate(0, 0, 0), pi);
    EXPECT_DOUBLE_EQ(Expression("e").evaluate(0, 0, 0), std::numbers::e);
    EXPECT_DOUBLE_EQ(Expression("1e5").evaluate(0, 0, 0), 1e5);
    EXPECT_DOUBLE_EQ(Expression("2.5").evaluate(4, 5, 6), 2.5);
}

TEST(Expression, IsConstant)
{
    EXPECT_TRUE(Expression("1").is_constant());
    EXPECT_TRUE(Expression("2*pi + e").is_constant());
    EXPECT_TRUE(Expression("sin(1) + 3").is_constant());
    EXPECT_FALSE(Expression("x").is_constant());
    EXPECT_FALSE(Expression("0*y").is_constant());
    EXPECT_FALSE(Expression("1 + z").is_constant());
    EXPECT_FALSE(Expression("sin(pi*x)*sin(pi*y)").is_constant());
}

TEST(Expression, BulkMatchesPointwise)
{
    const std::size_t n = 100000;
    std::mt19937_64 random(42);
    std::uniform_real_distribution<double> uniform(-2.0, 2.0);
    std::vector<double> xyz(3 * n);
    for (double& v : xyz) {
        v = uniform(random);
    }
    for (const char* text : {"sin(pi*x)*sin(pi*y)*exp(z)", "x^2 + 2*x*y - z", "x > 0 ? y : z",
                             "3.25"}) {
        Expression expression(text);
        std::vector<double> bulk(n);
        expression.evaluate(xyz, bulk);
        for (std::size_t i = 0; i < n; ++i) {
            ASSERT_EQ(bulk[i], expression.evaluate(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]))
                << text << " at point " << i;
        }
    }
}

TEST(Expression, BulkSizeMismatchThrows)
{
    Expression expression("x");
    std::vector<double> xyz(7), out(2);
    EXPECT_THROW(expression.evaluate(xyz, out), std::invalid_argument);
}

TEST(Expression, MovedExpressionStillEvaluates)
{
    Expression a("x + 2*y + 3*z");
    Expression b(std::move(a));
    EXPECT_DOUBLE_EQ(b.evaluate(1, 1, 1), 6.0);
    Expression c("0");
    c = std::move(b);
    EXPECT_DOUBLE_EQ(c.evaluate(1, 2, 3), 14.0);
}

TEST(Expression, SyntaxErrorsNameTextAndPosition)
{
    const std::string unclosed = compile_error("sin(");
    EXPECT_NE(unclosed.find("invalid expression 'sin('"), std::string::npos) << unclosed;
    EXPECT_NE(unclosed.find("position"), std::string::npos) << unclosed;

    const std::string operators = compile_error("1+*2");
    EXPECT_NE(operators.find("invalid expression '1+*2'"), std::string::npos) << operators;
    EXPECT_NE(operators.find("position 2"), std::string::npos) << operators;

    EXPECT_NE(compile_error("(x").find("'(x'"), std::string::npos);
    EXPECT_NE(compile_error("x)").find("'x)'"), std::string::npos);
    EXPECT_NE(compile_error("").find("invalid expression ''"), std::string::npos);
    EXPECT_NE(compile_error("sin(x, y)").find("sin"), std::string::npos);
}

TEST(Expression, UnknownNamesThrowAtCompileTime)
{
    const std::string t = compile_error("t + x");
    EXPECT_NE(t.find("invalid expression 't + x'"), std::string::npos) << t;
    EXPECT_NE(t.find("\"t\""), std::string::npos) << t;
    EXPECT_NE(t.find("position 0"), std::string::npos) << t;

    const std::string u = compile_error("2*u");
    EXPECT_NE(u.find("\"u\""), std::string::npos) << u;
    EXPECT_NE(u.find("variables are x, y, z"), std::string::npos) << u;

    const std::string function = compile_error("foo(x)");
    EXPECT_NE(function.find("invalid expression 'foo(x)'"), std::string::npos) << function;
    EXPECT_NE(function.find("foo"), std::string::npos) << function;
}

TEST(Expression, SeveralValuesRejected)
{
    const std::string message = compile_error("x, y");
    EXPECT_NE(message.find("expected one"), std::string::npos) << message;
}

}  // namespace
