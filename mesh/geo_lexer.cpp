#include "mesh/geo_lexer.hpp"

#include <cctype>
#include <fstream>
#include <iterator>

namespace gpufem {
namespace {

bool is_name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

/// Walks the text, counting lines.
struct Cursor {
    const std::string& text;
    std::size_t at = 0;
    int line = 1;

    bool done() const { return at >= text.size(); }
    bool starts(const char* two) const
    {
        return at + 1 < text.size() && text[at] == two[0] && text[at + 1] == two[1];
    }
    char next()
    {
        const char c = text[at++];
        if (c == '\n') ++line;
        if (c == '\0') throw GeoLexError{line, "a NUL byte (Gmsh stops reading there)"};
        return c;
    }
};

/// Skips a comment the cursor is at (// or /*); an unclosed /* runs to the end, as in Gmsh.
void skip_comment(Cursor& cursor)
{
    if (cursor.starts("//")) {
        while (!cursor.done() && cursor.text[cursor.at] != '\n') cursor.next();
        return;
    }
    cursor.at += 2;
    while (!cursor.done() && !cursor.starts("*/")) cursor.next();
    cursor.at += 2;
}

/// The string the cursor is at (its quote), up to the same quote: no escapes in Gmsh.
GeoToken read_string(Cursor& cursor)
{
    GeoToken token{GeoToken::Kind::string, "", cursor.line};
    const char quote = cursor.next();
    while (!cursor.done() && cursor.text[cursor.at] != quote) {
        token.text += cursor.next();
        if (token.text.size() > gmsh_max_string_length)
            throw GeoLexError{token.line, "a string longer than Gmsh's " +
                                              std::to_string(gmsh_max_string_length) +
                                              " characters (Gmsh would read its rest as script)"};
    }
    if (!cursor.done()) cursor.next();
    return token;
}

/// Whether the last token is the symbol '.'.
bool after_dot(const std::vector<GeoToken>& tokens)
{
    return !tokens.empty() && tokens.back().kind == GeoToken::Kind::symbol && tokens.back().text == ".";
}

}  // namespace

std::vector<GeoToken> lex_geo(const std::string& text)
{
    std::vector<GeoToken> tokens;
    Cursor cursor{text};
    while (!cursor.done()) {
        const char c = text[cursor.at];
        if (cursor.starts("//") || cursor.starts("/*")) {
            skip_comment(cursor);
        } else if (c == '"' || c == '\'') {
            tokens.push_back(read_string(cursor));
        } else if (is_name_start(c)) {
            GeoToken token{GeoToken::Kind::name, "", cursor.line, after_dot(tokens)};
            while (!cursor.done() && is_name_char(text[cursor.at])) token.text += cursor.next();
            tokens.push_back(std::move(token));
        } else if (std::isspace(static_cast<unsigned char>(c))) {
            cursor.next();
        } else {
            const int line = cursor.line;
            tokens.push_back({GeoToken::Kind::symbol, std::string(1, cursor.next()), line});
        }
    }
    return tokens;
}

std::string script_text(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace gpufem
