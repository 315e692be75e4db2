//! A reader for the TypeScript declarations the Agent SDK ships.
//!
//! It understands the subset `sdk.d.ts` and `sdk-tools.d.ts` use for wire
//! types: type aliases (`export declare type X<T = U> = ...`), interfaces
//! with `extends`, consts with a declared type (`HOOK_EVENTS: readonly
//! [...]`), and in types: object literals (optional and `readonly` members,
//! index signatures), unions and intersections (a leading `|` or `&`
//! allowed), string, number and boolean literals, arrays and tuples,
//! generic references (`Record<K, V>`, `coreTypes.SDKMessage`),
//! parentheses, function and constructor types, `typeof`, `keyof`, indexed
//! access (`T[number]`), and comments. What wire types never use (mapped,
//! conditional and template literal types) is read past and kept as
//! [`Type::Opaque`]; statements that declare no type (functions, classes,
//! namespaces, imports) are skipped.

use std::collections::BTreeMap;
use std::fmt;

/// A type expression.
#[derive(Debug, Clone, PartialEq)]
pub enum Type {
    /// A keyword type: `string`, `number`, `boolean`, `null`, `undefined`,
    /// `unknown`, `any`, `never`, `void`, `object`, ...
    Prim(String),
    /// A string literal type (`'init'`).
    Str(String),
    /// A number literal type, as written.
    Num(String),
    /// `true` or `false`.
    Bool(bool),
    /// A reference to a named type, with its type arguments
    /// (`coreTypes.SDKMessage` keeps its qualifier).
    Ref {
        /// The name as written, dots included.
        name: String,
        /// The type arguments (`Record<K, V>` has two).
        args: Vec<Type>,
    },
    /// An object literal type.
    Object(Object),
    /// `T[]`, `readonly T[]`.
    Array(Box<Type>),
    /// `[A, B]` (names, `?` and `...` of the elements dropped).
    Tuple(Vec<Type>),
    /// `A | B`.
    Union(Vec<Type>),
    /// `A & B`.
    Intersection(Vec<Type>),
    /// `typeof name`.
    TypeOf(String),
    /// `T[K]`.
    Indexed(Box<Type>, Box<Type>),
    /// A function or constructor type.
    Function,
    /// Anything else (`keyof T`, mapped, conditional, template literal
    /// types), with a word saying which.
    Opaque(String),
}

/// The members of an object literal type or interface body.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Object {
    /// Properties, in declaration order.
    pub members: Vec<Member>,
    /// `true` when it has an index signature (`[key: string]: T`): keys
    /// beyond the members are allowed.
    pub open: bool,
}

/// One property of an object type.
#[derive(Debug, Clone, PartialEq)]
pub struct Member {
    /// The key.
    pub name: String,
    /// Declared with `?:`.
    pub optional: bool,
    /// Its type (`any` when none is written).
    pub ty: Type,
}

/// A named declaration: a type alias, or an interface (as the
/// intersection of what it extends and its body).
#[derive(Debug, Clone, PartialEq)]
pub struct Decl {
    /// Its type parameters, each with its default when it has one.
    pub params: Vec<(String, Option<Type>)>,
    /// What the name stands for.
    pub ty: Type,
}

/// Every type and const declared in a set of files.
#[derive(Debug, Clone, Default)]
pub struct Declarations {
    /// Type aliases and interfaces by name.
    pub types: BTreeMap<String, Decl>,
    /// Consts with a declared type (`HOOK_EVENTS`), by name.
    pub consts: BTreeMap<String, Type>,
}

/// Why a file could not be read.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    /// 1-based line of the token where reading stopped.
    pub line: usize,
    /// What was expected.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for ParseError {}

impl Declarations {
    /// Reads one file's declarations.
    pub fn parse(source: &str) -> Result<Self, ParseError> {
        let tokens = lex(source)?;
        let mut parser = Parser {
            tokens,
            pos: 0,
            out: Declarations::default(),
        };
        parser.file()?;
        Ok(parser.out)
    }

    /// Adds another file's declarations (a name declared in both keeps the
    /// later one).
    pub fn extend(&mut self, other: Declarations) {
        self.types.extend(other.types);
        self.consts.extend(other.consts);
    }
}

// ----- tokens -----------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(String),
    Template,
    Punct(&'static str),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    line: usize,
}

const PUNCTS: &[&str] = &[
    "=>", "...", "{", "}", "(", ")", "[", "]", "<", ">", ",", ";", ":", "?", "|", "&", "=", ".",
    "*", "!", "@", "+", "-", "/", "%", "^", "~", "#",
];

fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let mut line = 1;
    let err = |line, message: &str| ParseError {
        line,
        message: message.to_owned(),
    };
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let start = line;
            i += 2;
            loop {
                match chars.get(i) {
                    None => return Err(err(start, "unterminated comment")),
                    Some('*') if chars.get(i + 1) == Some(&'/') => {
                        i += 2;
                        break;
                    }
                    Some('\n') => line += 1,
                    Some(_) => {}
                }
                i += 1;
            }
        } else if c == '\'' || c == '"' {
            let start = line;
            let mut s = String::new();
            i += 1;
            loop {
                match chars.get(i) {
                    None | Some('\n') => return Err(err(start, "unterminated string")),
                    Some('\\') => {
                        let escaped = chars.get(i + 1).copied().unwrap_or('\\');
                        s.push(match escaped {
                            'n' => '\n',
                            't' => '\t',
                            other => other,
                        });
                        i += 2;
                    }
                    Some(&q) if q == c => {
                        i += 1;
                        break;
                    }
                    Some(&other) => {
                        s.push(other);
                        i += 1;
                    }
                }
            }
            out.push(Token {
                tok: Tok::Str(s),
                line: start,
            });
        } else if c == '`' {
            // A template literal type: skipped whole, `${...}` nesting included.
            let start = line;
            i += 1;
            let mut depth = 0usize;
            loop {
                match chars.get(i) {
                    None => return Err(err(start, "unterminated template literal")),
                    Some('\\') => i += 1,
                    Some('\n') => line += 1,
                    Some('$') if depth == 0 && chars.get(i + 1) == Some(&'{') => {
                        depth = 1;
                        i += 1;
                    }
                    Some('{') if depth > 0 => depth += 1,
                    Some('}') if depth > 0 => depth -= 1,
                    Some('`') if depth == 0 => {
                        i += 1;
                        break;
                    }
                    Some(_) => {}
                }
                i += 1;
            }
            out.push(Token {
                tok: Tok::Template,
                line: start,
            });
        } else if c.is_ascii_digit() {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric() || chars[i] == '.' || chars[i] == '_')
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Num(chars[start..i].iter().collect()),
                line,
            });
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                line,
            });
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let Some(p) = PUNCTS.iter().find(|p| rest.starts_with(**p)) else {
                return Err(err(line, &format!("unexpected character {c:?}")));
            };
            i += p.chars().count();
            out.push(Token {
                tok: Tok::Punct(p),
                line,
            });
        }
    }
    Ok(out)
}

// ----- parser -------------------------------------------------------------------

const PRIMS: &[&str] = &[
    "string",
    "number",
    "boolean",
    "bigint",
    "symbol",
    "null",
    "undefined",
    "unknown",
    "any",
    "never",
    "void",
    "object",
    "this",
];

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    out: Declarations,
}

type Parsed<T> = Result<T, ParseError>;

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.peek_at(0)
    }

    fn peek_at(&self, n: usize) -> Option<&Tok> {
        self.tokens.get(self.pos + n).map(|t| &t.tok)
    }

    fn is_punct(&self, n: usize, p: &str) -> bool {
        matches!(self.peek_at(n), Some(Tok::Punct(q)) if *q == p)
    }

    fn is_ident(&self, n: usize, word: &str) -> bool {
        matches!(self.peek_at(n), Some(Tok::Ident(w)) if w == word)
    }

    fn eat_punct(&mut self, p: &str) -> bool {
        let hit = self.is_punct(0, p);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn eat_ident(&mut self, word: &str) -> bool {
        let hit = self.is_ident(0, word);
        if hit {
            self.pos += 1;
        }
        hit
    }

    fn error<T>(&self, message: impl Into<String>) -> Parsed<T> {
        let line = self
            .tokens
            .get(self.pos)
            .or(self.tokens.last())
            .map_or(1, |t| t.line);
        let found = match self.peek() {
            Some(tok) => format!("{tok:?}"),
            None => "end of file".to_owned(),
        };
        Err(ParseError {
            line,
            message: format!("{}, found {found}", message.into()),
        })
    }

    fn expect_punct(&mut self, p: &str) -> Parsed<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.error(format!("expected `{p}`"))
        }
    }

    fn ident(&mut self) -> Parsed<String> {
        match self.peek() {
            Some(Tok::Ident(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => self.error("expected a name"),
        }
    }

    /// Skips one token, or a whole bracketed group when it opens one.
    fn skip_one(&mut self) -> Parsed<()> {
        let close = match self.peek() {
            Some(Tok::Punct("{")) => "}",
            Some(Tok::Punct("(")) => ")",
            Some(Tok::Punct("[")) => "]",
            Some(_) => {
                self.pos += 1;
                return Ok(());
            }
            None => return self.error("unexpected end of file"),
        };
        self.pos += 1;
        while !self.eat_punct(close) {
            if self.peek().is_none() {
                return self.error(format!("expected `{close}`"));
            }
            self.skip_one()?;
        }
        Ok(())
    }

    /// Skips `<...>` when it comes next (angle brackets nest).
    fn skip_angles(&mut self) -> Parsed<()> {
        if !self.eat_punct("<") {
            return Ok(());
        }
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                Some(Tok::Punct("<")) => depth += 1,
                Some(Tok::Punct(">")) => depth -= 1,
                None => return self.error("expected `>`"),
                _ => {
                    self.skip_one()?;
                    continue;
                }
            }
            self.pos += 1;
        }
        Ok(())
    }

    /// Skips to the end of a statement: a `;` at this depth, or after a
    /// `{...}` group that ends the line.
    fn skip_statement(&mut self) -> Parsed<()> {
        loop {
            match self.peek() {
                None => return Ok(()),
                Some(Tok::Punct(";")) => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(Tok::Punct("{")) => {
                    let line = self.tokens[self.pos].line;
                    self.skip_one()?;
                    let next_line = self.tokens.get(self.pos).map_or(usize::MAX, |t| t.line);
                    if next_line > line && !self.is_punct(0, ";") && !self.is_punct(0, ")") {
                        // A block (`class X { ... }`, `namespace N { ... }`).
                        return Ok(());
                    }
                }
                Some(_) => self.skip_one()?,
            }
        }
    }

    fn file(&mut self) -> Parsed<()> {
        while self.peek().is_some() {
            self.statement()?;
        }
        Ok(())
    }

    fn statement(&mut self) -> Parsed<()> {
        while self.eat_ident("export") || self.eat_ident("declare") {}
        if self.is_ident(0, "type") && matches!(self.peek_at(1), Some(Tok::Ident(_))) {
            self.pos += 1;
            let name = self.ident()?;
            let params = self.type_params()?;
            self.expect_punct("=")?;
            let ty = self.ty()?;
            self.eat_punct(";");
            self.out.types.insert(name, Decl { params, ty });
            Ok(())
        } else if self.is_ident(0, "interface") {
            self.pos += 1;
            let name = self.ident()?;
            let params = self.type_params()?;
            let mut parts = Vec::new();
            if self.eat_ident("extends") {
                loop {
                    parts.push(self.postfix()?);
                    if !self.eat_punct(",") {
                        break;
                    }
                }
            }
            parts.push(Type::Object(self.object_body()?));
            let ty = if parts.len() == 1 {
                parts.remove(0)
            } else {
                Type::Intersection(parts)
            };
            self.out.types.insert(name, Decl { params, ty });
            Ok(())
        } else if (self.is_ident(0, "const") || self.is_ident(0, "let") || self.is_ident(0, "var"))
            && matches!(self.peek_at(1), Some(Tok::Ident(_)))
            && self.is_punct(2, ":")
        {
            self.pos += 1;
            let name = self.ident()?;
            self.expect_punct(":")?;
            let ty = self.ty()?;
            self.out.consts.insert(name, ty);
            self.skip_statement()
        } else {
            self.skip_statement()
        }
    }

    fn type_params(&mut self) -> Parsed<Vec<(String, Option<Type>)>> {
        let mut params = Vec::new();
        if !self.eat_punct("<") {
            return Ok(params);
        }
        while !self.eat_punct(">") {
            self.eat_ident("const");
            let name = self.ident()?;
            if self.eat_ident("extends") {
                self.ty()?;
            }
            let default = if self.eat_punct("=") {
                Some(self.ty()?)
            } else {
                None
            };
            params.push((name, default));
            if !self.eat_punct(",") && !self.is_punct(0, ">") {
                return self.error("expected `,` or `>` in type parameters");
            }
        }
        Ok(params)
    }

    /// A type, conditional types included.
    fn ty(&mut self) -> Parsed<Type> {
        let checked = self.union()?;
        if self.is_ident(0, "extends") {
            self.pos += 1;
            self.union()?;
            self.expect_punct("?")?;
            self.ty()?;
            self.expect_punct(":")?;
            self.ty()?;
            return Ok(Type::Opaque("conditional".into()));
        }
        Ok(checked)
    }

    fn union(&mut self) -> Parsed<Type> {
        self.eat_punct("|");
        let mut parts = vec![self.intersection()?];
        while self.eat_punct("|") {
            parts.push(self.intersection()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Type::Union(parts)
        })
    }

    fn intersection(&mut self) -> Parsed<Type> {
        self.eat_punct("&");
        let mut parts = vec![self.operator()?];
        while self.eat_punct("&") {
            parts.push(self.operator()?);
        }
        Ok(if parts.len() == 1 {
            parts.remove(0)
        } else {
            Type::Intersection(parts)
        })
    }

    fn operator(&mut self) -> Parsed<Type> {
        let starts_operand = |p: &Parser| {
            matches!(
                p.peek_at(1),
                Some(Tok::Ident(_) | Tok::Str(_) | Tok::Num(_) | Tok::Template)
                    | Some(Tok::Punct("(" | "[" | "{"))
            )
        };
        if self.is_ident(0, "keyof") && starts_operand(self) {
            self.pos += 1;
            self.operator()?;
            return Ok(Type::Opaque("keyof".into()));
        }
        if (self.is_ident(0, "readonly") || self.is_ident(0, "unique")) && starts_operand(self) {
            self.pos += 1;
            return self.operator();
        }
        if self.is_ident(0, "infer") && starts_operand(self) {
            self.pos += 1;
            self.ident()?;
            return Ok(Type::Opaque("infer".into()));
        }
        self.postfix()
    }

    fn postfix(&mut self) -> Parsed<Type> {
        let mut ty = self.primary()?;
        while self.is_punct(0, "[") {
            self.pos += 1;
            if self.eat_punct("]") {
                ty = Type::Array(Box::new(ty));
            } else {
                let index = self.ty()?;
                self.expect_punct("]")?;
                ty = Type::Indexed(Box::new(ty), Box::new(index));
            }
        }
        Ok(ty)
    }

    /// `(` starts a function type when its group is followed by `=>`.
    fn function_follows(&self) -> bool {
        let mut depth = 0usize;
        let mut i = self.pos;
        while let Some(t) = self.tokens.get(i) {
            match t.tok {
                Tok::Punct("(" | "[" | "{") => depth += 1,
                Tok::Punct(")" | "]" | "}") => {
                    depth -= 1;
                    if depth == 0 {
                        return matches!(
                            self.tokens.get(i + 1),
                            Some(Token {
                                tok: Tok::Punct("=>"),
                                ..
                            })
                        );
                    }
                }
                _ => {}
            }
            i += 1;
        }
        false
    }

    fn function_rest(&mut self) -> Parsed<Type> {
        self.skip_angles()?;
        if !self.is_punct(0, "(") {
            return self.error("expected `(` of a function type");
        }
        self.skip_one()?;
        self.expect_punct("=>")?;
        self.return_type()?;
        Ok(Type::Function)
    }

    /// A return type, type predicates (`x is T`, `asserts x`) included.
    fn return_type(&mut self) -> Parsed<Type> {
        if self.is_ident(0, "asserts") && matches!(self.peek_at(1), Some(Tok::Ident(_))) {
            self.pos += 2;
            if self.eat_ident("is") {
                self.ty()?;
            }
            return Ok(Type::Prim("void".into()));
        }
        if matches!(self.peek_at(0), Some(Tok::Ident(_))) && self.is_ident(1, "is") {
            self.pos += 2;
            self.ty()?;
            return Ok(Type::Prim("boolean".into()));
        }
        self.ty()
    }

    fn type_args(&mut self) -> Parsed<Vec<Type>> {
        let mut args = Vec::new();
        if !self.eat_punct("<") {
            return Ok(args);
        }
        while !self.eat_punct(">") {
            args.push(self.ty()?);
            if !self.eat_punct(",") && !self.is_punct(0, ">") {
                return self.error("expected `,` or `>` in type arguments");
            }
        }
        Ok(args)
    }

    fn primary(&mut self) -> Parsed<Type> {
        let Some(tok) = self.peek().cloned() else {
            return self.error("expected a type");
        };
        match tok {
            Tok::Str(s) => {
                self.pos += 1;
                Ok(Type::Str(s))
            }
            Tok::Num(n) => {
                self.pos += 1;
                Ok(Type::Num(n))
            }
            Tok::Template => {
                self.pos += 1;
                Ok(Type::Opaque("template".into()))
            }
            Tok::Punct("-") => {
                self.pos += 1;
                match self.peek().cloned() {
                    Some(Tok::Num(n)) => {
                        self.pos += 1;
                        Ok(Type::Num(format!("-{n}")))
                    }
                    _ => self.error("expected a number after `-`"),
                }
            }
            Tok::Punct("(") => {
                if self.function_follows() {
                    return self.function_rest();
                }
                self.pos += 1;
                let inner = self.ty()?;
                self.expect_punct(")")?;
                Ok(inner)
            }
            Tok::Punct("<") => self.function_rest(),
            Tok::Punct("{") => self.object_or_mapped(),
            Tok::Punct("[") => self.tuple(),
            Tok::Ident(word) => {
                if word == "new" && (self.is_punct(1, "(") || self.is_punct(1, "<")) {
                    self.pos += 1;
                    return self.function_rest();
                }
                if word == "abstract" && self.is_ident(1, "new") {
                    self.pos += 2;
                    return self.function_rest();
                }
                self.pos += 1;
                match word.as_str() {
                    "true" => return Ok(Type::Bool(true)),
                    "false" => return Ok(Type::Bool(false)),
                    "typeof" => {
                        let name = self.qualified_name()?;
                        self.type_args()?;
                        return Ok(Type::TypeOf(name));
                    }
                    w if PRIMS.contains(&w) && !self.is_punct(0, ".") => {
                        return Ok(Type::Prim(word));
                    }
                    _ => {}
                }
                let mut name = word;
                while self.eat_punct(".") {
                    name.push('.');
                    name.push_str(&self.ident()?);
                }
                let args = self.type_args()?;
                Ok(Type::Ref { name, args })
            }
            _ => self.error("expected a type"),
        }
    }

    fn qualified_name(&mut self) -> Parsed<String> {
        let mut name = self.ident()?;
        while self.eat_punct(".") {
            name.push('.');
            name.push_str(&self.ident()?);
        }
        Ok(name)
    }

    fn tuple(&mut self) -> Parsed<Type> {
        self.expect_punct("[")?;
        let mut items = Vec::new();
        while !self.eat_punct("]") {
            self.eat_punct("...");
            let named = matches!(self.peek(), Some(Tok::Ident(_)))
                && (self.is_punct(1, ":") || (self.is_punct(1, "?") && self.is_punct(2, ":")));
            if named {
                self.pos += 1;
                self.eat_punct("?");
                self.expect_punct(":")?;
            }
            items.push(self.ty()?);
            self.eat_punct("?");
            if !self.eat_punct(",") && !self.is_punct(0, "]") {
                return self.error("expected `,` or `]` in a tuple");
            }
        }
        Ok(Type::Tuple(items))
    }

    /// `{ ... }`: an object type, or a mapped type (kept opaque).
    fn object_or_mapped(&mut self) -> Parsed<Type> {
        let mut i = 1;
        while self.is_punct(i, "+") || self.is_punct(i, "-") || self.is_ident(i, "readonly") {
            i += 1;
        }
        let mapped = self.is_punct(i, "[")
            && matches!(self.peek_at(i + 1), Some(Tok::Ident(_)))
            && self.is_ident(i + 2, "in");
        if mapped {
            self.skip_one()?;
            return Ok(Type::Opaque("mapped".into()));
        }
        Ok(Type::Object(self.object_body()?))
    }

    fn object_body(&mut self) -> Parsed<Object> {
        self.expect_punct("{")?;
        let mut object = Object::default();
        loop {
            while self.eat_punct(";") || self.eat_punct(",") {}
            if self.eat_punct("}") {
                return Ok(object);
            }
            self.member(&mut object)?;
        }
    }

    fn member(&mut self, object: &mut Object) -> Parsed<()> {
        // Modifiers, when a name follows them.
        loop {
            let is_modifier = matches!(
                self.peek(),
                Some(Tok::Ident(w)) if matches!(w.as_str(), "readonly" | "get" | "set" | "static" | "public" | "private" | "protected" | "abstract" | "declare" | "override" | "async")
            );
            let name_follows = matches!(
                self.peek_at(1),
                Some(Tok::Ident(_) | Tok::Str(_) | Tok::Num(_)) | Some(Tok::Punct("["))
            );
            if is_modifier && name_follows {
                self.pos += 1;
            } else {
                break;
            }
        }
        let name = match self.peek().cloned() {
            Some(Tok::Punct("(" | "<")) => {
                // A call signature.
                self.skip_angles()?;
                self.skip_one()?;
                if self.eat_punct(":") {
                    self.return_type()?;
                }
                return Ok(());
            }
            Some(Tok::Ident(w))
                if w == "new" && (self.is_punct(1, "(") || self.is_punct(1, "<")) =>
            {
                self.pos += 1;
                self.skip_angles()?;
                self.skip_one()?;
                if self.eat_punct(":") {
                    self.ty()?;
                }
                return Ok(());
            }
            Some(Tok::Punct("[")) => {
                let index_signature =
                    matches!(self.peek_at(1), Some(Tok::Ident(_))) && self.is_punct(2, ":");
                self.skip_one()?;
                if index_signature {
                    self.expect_punct(":")?;
                    self.ty()?;
                    object.open = true;
                    return Ok(());
                }
                None // a computed key: not a wire field
            }
            Some(Tok::Ident(w)) => {
                self.pos += 1;
                Some(w)
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Some(s)
            }
            Some(Tok::Num(n)) => {
                self.pos += 1;
                Some(n)
            }
            _ => return self.error("expected a member"),
        };
        let optional = self.eat_punct("?");
        if self.is_punct(0, "(") || self.is_punct(0, "<") {
            // A method: not a wire field.
            self.skip_angles()?;
            self.skip_one()?;
            if self.eat_punct(":") {
                self.return_type()?;
            }
            return Ok(());
        }
        let ty = if self.eat_punct(":") {
            self.ty()?
        } else {
            Type::Prim("any".into())
        };
        if let Some(name) = name {
            object.members.push(Member { name, optional, ty });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Declarations {
        Declarations::parse(src).unwrap_or_else(|e| panic!("{e}"))
    }

    fn r(name: &str) -> Type {
        Type::Ref {
            name: name.into(),
            args: vec![],
        }
    }

    fn member(name: &str, optional: bool, ty: Type) -> Member {
        Member {
            name: name.into(),
            optional,
            ty,
        }
    }

    #[test]
    fn an_alias_of_an_object_with_optional_members_and_comments() {
        let d = parse(
            "/** doc */\nexport declare type A = {\n  type: 'a'; // the tag\n  /* x */ readonly b?: string[];\n  'c-d': number | null,\n};",
        );
        assert_eq!(
            d.types["A"].ty,
            Type::Object(Object {
                members: vec![
                    member("type", false, Type::Str("a".into())),
                    member(
                        "b",
                        true,
                        Type::Array(Box::new(Type::Prim("string".into())))
                    ),
                    member(
                        "c-d",
                        false,
                        Type::Union(vec![Type::Prim("number".into()), Type::Prim("null".into())])
                    ),
                ],
                open: false,
            })
        );
    }

    #[test]
    fn interfaces_with_extends_become_intersections() {
        let d = parse("export interface B extends A, C<string> { x: 1 }\ninterface E {}");
        let Type::Intersection(parts) = &d.types["B"].ty else {
            panic!("{:?}", d.types["B"]);
        };
        assert_eq!(parts[0], r("A"));
        assert_eq!(
            parts[1],
            Type::Ref {
                name: "C".into(),
                args: vec![Type::Prim("string".into())]
            }
        );
        assert_eq!(
            parts[2],
            Type::Object(Object {
                members: vec![member("x", false, Type::Num("1".into()))],
                open: false
            })
        );
        assert_eq!(d.types["E"].ty, Type::Object(Object::default()));
    }

    #[test]
    fn unions_intersections_and_precedence() {
        let d = parse("type U =\n  | A\n  | B & { k: 'v' }\n  | (C | D)[];");
        assert_eq!(
            d.types["U"].ty,
            Type::Union(vec![
                r("A"),
                Type::Intersection(vec![
                    r("B"),
                    Type::Object(Object {
                        members: vec![member("k", false, Type::Str("v".into()))],
                        open: false
                    })
                ]),
                Type::Array(Box::new(Type::Union(vec![r("C"), r("D")]))),
            ])
        );
    }

    #[test]
    fn generics_qualified_names_and_defaults() {
        let d = parse(
            "declare type G<T = unknown, U extends string = 'x'> = Record<string, Array<T>> | coreTypes.M;",
        );
        assert_eq!(d.types["G"].params.len(), 2);
        assert_eq!(
            d.types["G"].params[1],
            ("U".into(), Some(Type::Str("x".into())))
        );
        assert_eq!(
            d.types["G"].ty,
            Type::Union(vec![
                Type::Ref {
                    name: "Record".into(),
                    args: vec![
                        Type::Prim("string".into()),
                        Type::Ref {
                            name: "Array".into(),
                            args: vec![r("T")]
                        }
                    ]
                },
                r("coreTypes.M"),
            ])
        );
    }

    #[test]
    fn consts_tuples_typeof_and_indexed_access() {
        let d = parse(
            "export declare const EV: readonly ['A', \"B\"];\nexport declare const S = \"x\";\ntype E = (typeof EV)[number];",
        );
        assert_eq!(
            d.consts["EV"],
            Type::Tuple(vec![Type::Str("A".into()), Type::Str("B".into())])
        );
        assert!(!d.consts.contains_key("S"));
        assert_eq!(
            d.types["E"].ty,
            Type::Indexed(
                Box::new(Type::TypeOf("EV".into())),
                Box::new(Type::Prim("number".into()))
            )
        );
    }

    #[test]
    fn functions_classes_namespaces_and_imports_are_read_past() {
        let d = parse(
            r#"import type { X } from 'x';
export declare function f<T>(a: { b: T }, ...rest: unknown[]): a is string;
export declare class K extends Error implements I {
    private store;
    constructor(message?: string);
    get size(): number;
}
declare namespace ns {
    export { A, B };
}
type F = (x: number, y?: string) => Promise<void>;
type N = new (...args: any[]) => object;
type P = { cb: (a: (b: string) => void) => void; m?(x: number): string; (call: 1): 2; [key: string]: unknown; [Symbol.iterator](): void };
export { };
type Last = 'end';"#,
        );
        assert_eq!(d.types["F"].ty, Type::Function);
        assert_eq!(d.types["N"].ty, Type::Function);
        assert_eq!(
            d.types["P"].ty,
            Type::Object(Object {
                members: vec![member("cb", false, Type::Function)],
                open: true
            })
        );
        assert_eq!(d.types["Last"].ty, Type::Str("end".into()));
        assert_eq!(d.types.len(), 4);
    }

    #[test]
    fn mapped_conditional_and_template_types_are_opaque() {
        let d = parse(
            "type M<T> = { [K in keyof T]: T[K] extends { o: infer O } ? O : never } & {};\ntype T = `mcp__${string}`;\ntype C<T> = T extends string ? 'a' : 'b';",
        );
        assert_eq!(
            d.types["M"].ty,
            Type::Intersection(vec![
                Type::Opaque("mapped".into()),
                Type::Object(Object::default())
            ])
        );
        assert_eq!(d.types["T"].ty, Type::Opaque("template".into()));
        assert_eq!(d.types["C"].ty, Type::Opaque("conditional".into()));
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let err = Declarations::parse("type A = {\n  b: ;\n};").unwrap_err();
        assert_eq!(err.line, 2, "{err}");
    }
}
