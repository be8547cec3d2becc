/**
 * `common.rs` of a generated crate: what every application module shares. Subject checks are byte
 * tables and comparisons (no regular expressions), nothing panics on any input, and nothing
 * allocates but `render`'s output string. Builds on Rust 1.63 (Debian) and current stable.
 */
export const COMMON_RS = `//! Shared by the generated NATS contract modules (unplugin-contracts). Do not edit.

use core::fmt;

/** Why a subject could not be rendered or parsed. */
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SubjectError {
    /// A parameter value outside its token domain.
    InvalidValue(&'static str),
    /// The subject is not one of the channel's subjects.
    NoMatch,
}

impl fmt::Display for SubjectError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SubjectError::InvalidValue(parameter) => {
                write!(f, "invalid value for {{{}}}", parameter)
            }
            SubjectError::NoMatch => f.write_str("the subject is not in the channel's language"),
        }
    }
}

impl std::error::Error for SubjectError {}

/// Where a descriptor comes from in the contract document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Source {
    pub file: &'static str,
    pub pointer: &'static str,
    pub line: u32,
    pub column: u32,
}

/// The contract's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Contract {
    pub id: &'static str,
    pub version: &'static str,
    pub profile: &'static str,
    /// Lowercase SHA-256 of the document's exact bytes.
    pub digest: &'static str,
    pub binding: &'static str,
    pub minimum_server_version: &'static str,
}

/// An operation as its profile entry describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operation {
    pub id: &'static str,
    pub action: &'static str,
    pub channel: &'static str,
    pub kind: &'static str,
    pub api: &'static str,
    pub confirmation: Option<&'static str>,
    pub stream: Option<&'static str>,
    pub consumer: Option<&'static str>,
    pub queue: Option<&'static str>,
    pub request_timeout_ms: Option<u64>,
    pub reply_channel: Option<&'static str>,
    pub source: Source,
}

/// A keyed descriptor (stream, consumer, adapter, interaction, pipeline, workflow) with its data as JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Described {
    pub key: &'static str,
    pub json: &'static str,
    pub source: Source,
}

/// The characters a token type allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Alphabet {
    Lower,
    Ascii,
    Hex,
}

/// A token type of the kind \`token\`: alphabet, first character, prefix, byte bounds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TokenRule {
    pub alphabet: Alphabet,
    pub first_letter: bool,
    pub prefix: &'static str,
    pub min_length: usize,
    pub max_length: usize,
}

fn in_alphabet(alphabet: Alphabet, b: u8) -> bool {
    match alphabet {
        Alphabet::Lower => b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-',
        Alphabet::Ascii => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
        Alphabet::Hex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
    }
}

impl TokenRule {
    /// Whether \`value\` is a token of this type.
    pub fn accepts(&self, value: &str) -> bool {
        let bytes = value.as_bytes();
        let n = bytes.len();
        if n < self.min_length || n > self.max_length || !value.starts_with(self.prefix) {
            return false;
        }
        let rest = &bytes[self.prefix.len()..];
        if self.first_letter && !matches!(rest.first(), Some(b) if b.is_ascii_alphabetic()) {
            return false;
        }
        rest.iter().all(|b| in_alphabet(self.alphabet, *b))
    }
}

/// A base ASCII token (\`[A-Za-z0-9_-]+\`).
pub fn is_base_token(value: &str) -> bool {
    !value.is_empty()
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// One position of a filter template.
#[derive(Clone, Copy)]
pub enum FilterToken {
    Literal(&'static str),
    Param(fn(&str) -> bool),
    Star,
    Tail,
}

/// Whether \`subject\` is delivered by a filter: literals equal, placeholders in their domains (and
/// equal where \`same\` pairs two positions of one placeholder), \`*\` any one token, a final \`>\` one
/// or more tokens. No allocation.
pub fn filter_matches(template: &[FilterToken], same: &[(usize, usize)], subject: &str) -> bool {
    let tail = matches!(template.last(), Some(FilterToken::Tail));
    let fixed = if tail {
        template.len() - 1
    } else {
        template.len()
    };
    let mut rest = subject;
    for (i, token) in template.iter().take(fixed).enumerate() {
        let (value, after) = match rest.find('.') {
            Some(dot) => (&rest[..dot], Some(&rest[dot + 1..])),
            None => (rest, None),
        };
        let ok = match token {
            FilterToken::Literal(text) => value == *text,
            FilterToken::Param(accepts) => is_base_token(value) && accepts(value),
            FilterToken::Star => !value.is_empty(),
            FilterToken::Tail => false,
        };
        if !ok {
            return false;
        }
        match after {
            Some(next) => rest = next,
            None => {
                if i + 1 != fixed || tail {
                    return false;
                }
                return same
                    .iter()
                    .all(|(a, b)| nth_token(subject, *a) == nth_token(subject, *b));
            }
        }
    }
    if !tail || rest.is_empty() || rest.split('.').any(|t| t.is_empty()) {
        return false;
    }
    same.iter()
        .all(|(a, b)| nth_token(subject, *a) == nth_token(subject, *b))
}

fn nth_token(subject: &str, n: usize) -> Option<&str> {
    subject.split('.').nth(n)
}
`
