//! One helper for the vocabulary: an enum whose every variant is a TRACE.md / CHECKER.md word. The macro writes
//! the variant list (`ALL`, in declaration order), `name()`, `from_name()`, `Display` and `Serialize` from one
//! table, so a word is spelled once, and a variant's index in `ALL` is its discriminant by construction.

/// What every `words!` enum offers generic code (the JSON field reader, the i18n test): its variants and words.
pub trait Word: Copy + 'static {
    /// Every variant, in declaration order.
    fn all() -> &'static [Self];
    /// Every word, in the same order.
    fn names() -> &'static [&'static str];

    /// The words as a message lists them: `` `a`, `b`, `c` ``.
    fn listed() -> String {
        quoted_list(Self::names())
    }
}

/// `` `a`, `b` `` for a message.
pub fn quoted_list(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Declares a unit enum with one word per variant:
/// `words! { /// doc  pub enum Kind { /// doc  Variant = "word", ... } }`.
#[macro_export]
macro_rules! words {
    ($(#[$meta:meta])* $vis:vis enum $name:ident { $($(#[$vmeta:meta])* $variant:ident = $word:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        $vis enum $name { $($(#[$vmeta])* $variant,)+ }

        impl $name {
            /// Every variant, in declaration order (`ALL[v as usize] == v`).
            pub const ALL: [$name; [$($word),+].len()] = [$($name::$variant),+];
            /// Every word, in the same order.
            pub const NAMES: [&'static str; [$($word),+].len()] = [$($word),+];

            /// The word TRACE.md / CHECKER.md spell it with.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $word,)+ }
            }

            /// The variant spelled `word`, if any.
            pub fn from_name(word: &str) -> Option<$name> {
                $name::ALL.into_iter().find(|v| v.name() == word)
            }
        }

        impl $crate::words::Word for $name {
            fn all() -> &'static [$name] {
                &$name::ALL
            }
            fn names() -> &'static [&'static str] {
                &$name::NAMES
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
    };
}
