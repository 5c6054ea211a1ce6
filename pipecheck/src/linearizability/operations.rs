//! [`operations!`](crate::operations): an object's operation type and its output type
//! declared together from one list of its operations.

/// Declares an object's operation type and its output type, one variant each per
/// operation: `Op::Push(u64)` is the call, `Out::Push(..)` what it returned. The two
/// enums get the attributes given (the docs for the operation type; `#[derive(..)]` for
/// both) and a generated doc line per variant, so that a public pair needs no doc
/// comment per variant (`missing_docs`); an operation that returns nothing has the output
/// `()`.
///
/// # Examples
///
/// ```
/// pipecheck::operations! {
///     /// A queue operation.
///     #[derive(Clone, Copy, Debug, PartialEq, Eq)]
///     pub enum Op -> Out {
///         Push(u64) -> Result<(), u64>,
///         Pop -> Option<u64>,
///         Close -> (),
///     }
/// }
///
/// let calls = [Op::Push(1), Op::Pop, Op::Close];
/// let returned = [Out::Push(Ok(())), Out::Pop(Some(1)), Out::Close(())];
/// assert_eq!(format!("{calls:?} {returned:?}"), "[Push(1), Pop, Close] [Push(Ok(())), Pop(Some(1)), Close(())]");
/// ```
#[macro_export]
macro_rules! operations {
    (
        $(#[doc = $doc:literal])*
        #[derive($($derive:path),* $(,)?)]
        $vis:vis enum $op:ident -> $out:ident {
            $($variant:ident $(($($arg:ty),* $(,)?))? -> $output:ty),* $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive($($derive),*)]
        $vis enum $op {
            $(
                #[doc = concat!("`", stringify!($variant), $("(", stringify!($($arg),*), ")",)? "`.")]
                $variant $(($($arg),*))?,
            )*
        }
        #[doc = concat!("What an [`", stringify!($op), "`] returned, in the variant of the same name.")]
        #[derive($($derive),*)]
        $vis enum $out {
            $(
                #[doc = concat!("What `", stringify!($variant), "` returned: `", stringify!($output), "`.")]
                $variant($output),
            )*
        }
    };
}
