//! README's Rust snippets are compiled: each is, line for line, a snippet of a crate's
//! README, which that crate compiles as doctests (`#[doc = include_str!("../README.md")]`),
//! with the same dependency lines above it. A snippet edited in one place only fails here.

/// A README's fenced blocks: (the fence's language and attributes, the code).
fn blocks(text: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut open: Option<(String, String)> = None;
    for line in text.lines() {
        match (&mut open, line.strip_prefix("```")) {
            (None, Some(info)) => open = Some((info.to_string(), String::new())),
            (Some(_), Some("")) => found.extend(open.take()),
            (Some((_, code)), _) => {
                code.push_str(line);
                code.push('\n');
            }
            (None, None) => {}
        }
    }
    found
}

/// What rustdoc shows of a doctest: its `# ` lines are hidden.
fn shown(code: &str) -> String {
    code.lines()
        .filter(|line| !(line.starts_with("# ") || *line == "#"))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// Each Rust block with the TOML block nearest above it.
fn snippets(text: &str) -> Vec<(String, Option<String>, String)> {
    let mut toml = None;
    let mut found = Vec::new();
    for (info, code) in blocks(text) {
        if info == "toml" {
            toml = Some(code);
        } else if info.split(',').next() == Some("rust") {
            found.push((info, toml.clone(), code));
        }
    }
    found
}

#[test]
fn every_readme_snippet_is_a_compiled_crate_snippet() {
    let root = include_str!("../../README.md");
    let crates = [
        include_str!("../../crates/pixel_collide/README.md"),
        include_str!("../../crates/bevy_pixel_collide/README.md"),
    ];
    let compiled: Vec<_> = crates.iter().flat_map(|text| snippets(text)).collect();
    let ours = snippets(root);
    assert!(ours.len() >= 3, "README's snippets: {}", ours.len());
    for (_, toml, code) in &ours {
        let twin = compiled.iter().find(|(_, _, c)| shown(c) == *code);
        let Some((info, crate_toml, _)) = twin else {
            panic!("no crate README has this snippet of README.md:\n{code}");
        };
        assert!(
            !info.contains("ignore"),
            "compiled nowhere ({info}):\n{code}"
        );
        assert_eq!(toml, crate_toml, "the dependency lines above:\n{code}");
    }
    for (info, _, code) in &compiled {
        assert!(
            !info.contains("ignore"),
            "a crate README snippet is ignored:\n{code}"
        );
    }
}
