//! The compiler errors a handler that does not fit gets: ours name the fix
//! (`with_state`, the derives, `Json`, the accepted answers). Tool
//! arguments without a type get the compiler's own "type annotations
//! needed", which no attribute can change; `McpServer::tool`'s docs say to
//! name the type. Each case is a program under `ui`; its `.stderr`
//! pins the message.
//! Run with `TRYBUILD=overwrite` to accept a deliberate change.

#[test]
fn handlers_that_do_not_fit_are_told_how_to_fit() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/*.rs");
}
