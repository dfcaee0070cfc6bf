//! Index documents built from store rows. The rebuild and the per-write
//! updates use these same builders, so they cannot drift apart.

use rusqlite::Connection;

use super::{DocKind, SearchDoc};
use crate::error::Result;

/// A tool: found by its name, its shown name, description and category.
pub fn tool_doc(
    id: &str,
    shown_name: &str,
    description: &str,
    category: &str,
    active: bool,
) -> SearchDoc {
    SearchDoc {
        kind: DocKind::Tool,
        id: id.to_owned(),
        owner: None,
        title: if shown_name == id {
            id.replace('_', " ")
        } else {
            format!("{shown_name} ({})", id.replace('_', " "))
        },
        body: format!("{description}\n{category}"),
        active,
    }
}

/// A skill: found by its name, description and instructions.
pub fn skill_doc(id: &str, description: &str, body: &str, active: bool) -> SearchDoc {
    SearchDoc {
        kind: DocKind::Skill,
        id: id.to_owned(),
        owner: None,
        title: id.replace('-', " "),
        body: format!("{description}\n\n{body}"),
        active,
    }
}

/// A memory: found by its owner only.
pub fn memory_doc(id: &str, user_id: &str, title: &str, content: &str) -> SearchDoc {
    SearchDoc {
        kind: DocKind::Memory,
        id: id.to_owned(),
        owner: Some(user_id.to_owned()),
        title: title.to_owned(),
        body: content.to_owned(),
        active: true,
    }
}

/// Every searchable row of the store.
pub fn all_docs(conn: &Connection) -> Result<Vec<SearchDoc>> {
    let mut docs = Vec::new();
    let mut tools = conn.prepare(
        "SELECT id, COALESCE(display_name, id), COALESCE(description_override, description), category, active
         FROM tools",
    )?;
    let rows = tools.query_map([], |r| {
        Ok(tool_doc(
            &r.get::<_, String>(0)?,
            &r.get::<_, String>(1)?,
            &r.get::<_, String>(2)?,
            &r.get::<_, String>(3)?,
            r.get(4)?,
        ))
    })?;
    for doc in rows {
        docs.push(doc?);
    }
    let mut skills = conn.prepare("SELECT id, description, body, active FROM skills")?;
    let rows = skills.query_map([], |r| {
        Ok(skill_doc(
            &r.get::<_, String>(0)?,
            &r.get::<_, String>(1)?,
            &r.get::<_, String>(2)?,
            r.get(3)?,
        ))
    })?;
    for doc in rows {
        docs.push(doc?);
    }
    let mut memories = conn.prepare("SELECT id, user_id, title, content FROM memories")?;
    let rows = memories.query_map([], |r| {
        Ok(memory_doc(
            &r.get::<_, String>(0)?,
            &r.get::<_, String>(1)?,
            &r.get::<_, String>(2)?,
            &r.get::<_, String>(3)?,
        ))
    })?;
    for doc in rows {
        docs.push(doc?);
    }
    Ok(docs)
}
