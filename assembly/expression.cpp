// Expression: muParser compiled once per object, evaluated point by point on the host.
#include "assembly/expression.hpp"

#include <omp.h>

#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>

#include <muParser.h>

namespace gpufem {

namespace {

/// "invalid expression 'TEXT': <muParser message> at position N" (position added when
/// muParser's message does not already give it), with a hint for unknown names.
std::string describe_error(const std::string& text, const mu::Parser::exception_type& error)
{
    std::string message = error.GetMsg();
    while (!message.empty() && (message.back() == '.' || message.back() == ' ')) {
        message.pop_back();
    }
    if (message.find("position") == std::string::npos && error.GetPos() >= 0) {
        message += " at position " + std::to_string(error.GetPos());
    }
    if (error.GetCode() == mu::ecUNASSIGNABLE_TOKEN) {
        message += " (variables are x, y, z; constants pi, e)";
    }
    return "invalid expression '" + text + "': " + message;
}

}  // namespace

/// The parser and the variables it reads; heap-allocated so that the addresses bound with
/// DefineVar stay valid when the Expression moves.
struct Expression::Impl {
    mu::Parser parser;
    double x = 0.0;
    double y = 0.0;
    double z = 0.0;
};

Expression::Expression(std::string text) : text_(std::move(text)), impl_(std::make_unique<Impl>())
{
    mu::Parser& parser = impl_->parser;
    try {
        parser.DefineVar("x", &impl_->x);
        parser.DefineVar("y", &impl_->y);
        parser.DefineVar("z", &impl_->z);
        parser.DefineConst("pi", std::numbers::pi);
        parser.DefineConst("e", std::numbers::e);
        parser.SetExpr(text_);
        // GetUsedVar parses the whole text (syntax errors surface here) and lists every name
        // used as a variable, including undefined ones; Eval then rejects those.
        const mu::varmap_type& used = parser.GetUsedVar();
        constant_ = used.empty();
        parser.Eval();
        if (parser.GetNumResults() != 1) {
            throw std::invalid_argument("invalid expression '" + text_ + "': it gives " +
                                        std::to_string(parser.GetNumResults()) +
                                        " comma-separated values; expected one");
        }
    } catch (const mu::Parser::exception_type& error) {
        throw std::invalid_argument(describe_error(text_, error));
    }
}

Expression::~Expression() = default;
Expression::Expression(Expression&&) noexcept = default;
Expression& Expression::operator=(Expression&&) noexcept = default;

double Expression::evaluate(double x, double y, double z) const
{
    impl_->x = x;
    impl_->y = y;
    impl_->z = z;
    try {
        return impl_->parser.Eval();
    } catch (const mu::Parser::exception_type& error) {
        throw std::invalid_argument(describe_error(text_, error));
    }
}

// muParser's bulk Eval(results, n) is not used: the Debian build runs it with OpenMP and
// calls omp_set_num_threads(min(max threads, 16)), a process-wide side effect, and it
// re-parses the text on every call. One compiled Eval per point costs the same per thread
// (~35 ns for "sin(pi*x)*sin(pi*y) + x^2*exp(-y)") and needs no extra memory.
void Expression::evaluate(std::span<const double> xyz, std::span<double> out) const
{
    if (xyz.size() != 3 * out.size()) {
        throw std::invalid_argument("Expression::evaluate('" + text_ + "'): " +
                                    std::to_string(xyz.size()) + " coordinates for " +
                                    std::to_string(out.size()) + " values (expected 3 per value)");
    }
    if (constant_ && !out.empty()) {
        const double value = evaluate(0.0, 0.0, 0.0);
        for (double& v : out) {
            v = value;
        }
        return;
    }
    // Large batches are split over OpenMP threads, each with its own compiled copy (a muParser
    // object holds its variables, so one object cannot be shared between threads).
    constexpr std::size_t parallel_threshold = 1 << 16;
    if (out.size() >= parallel_threshold && omp_get_max_threads() > 1) {
        const long long n = static_cast<long long>(out.size());
        bool failed = false;
#pragma omp parallel reduction(|| : failed)
        {
            try {
                const Expression local(text_);
#pragma omp for schedule(static)
                for (long long i = 0; i < n; ++i)
                    out[i] = local.evaluate(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
            } catch (const std::exception&) {
                failed = true;  // exceptions must not leave an OpenMP region
            }
        }
        if (!failed) return;
        // fall through: the serial loop reports the error with its message
    }
    Impl& impl = *impl_;
    try {
        for (std::size_t i = 0; i < out.size(); ++i) {
            impl.x = xyz[3 * i];
            impl.y = xyz[3 * i + 1];
            impl.z = xyz[3 * i + 2];
            out[i] = impl.parser.Eval();
        }
    } catch (const mu::Parser::exception_type& error) {
        throw std::invalid_argument(describe_error(text_, error));
    }
}

}  // namespace gpufem
