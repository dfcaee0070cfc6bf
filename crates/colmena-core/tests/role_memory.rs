//! A role's own scope (issue 15, seed 003 "cada rol mantiene su propia
//! memoria"): what a woken role saves with the memory tools is the role's —
//! under `@<author id>`, not its owner's — through every memory tool and
//! every run it delegates to; another role's wake-up never finds it, no
//! tool argument reaches it, and the person reads and tidies it as that
//! role. A role's standing instructions and own skills reach its model's
//! system prompt, and only its own. The model is the scripted provider; the
//! assertions read what went over the wire and what the store holds.

#![allow(clippy::unwrap_used)]

mod support;

use colmena_core::inbox::{self, Caller, NewAuthor};
use colmena_core::skills::{self, SkillDraft};
use colmena_core::{Ctx, ErrorCode, memory};
use colmena_scripted_llm::Rule;
use support::bus::send;
use support::hive::{agent, hive, when};

/// A role `name` played by the agent `agent_id`, with its own scope.
async fn role(
    ctx: &Ctx,
    name: &str,
    agent_id: &str,
    instructions: Option<&str>,
    skills: &[&str],
) -> inbox::Author {
    inbox::authors::create(
        ctx,
        NewAuthor {
            name: name.into(),
            agent_id: Some(agent_id.into()),
            wake_interval_minutes: Some(60),
            instructions: instructions.map(str::to_owned),
            skills: Some(skills.iter().map(|s| (*s).to_owned()).collect()),
            ..Default::default()
        },
    )
    .await
    .unwrap()
    .author
}

async fn person(ctx: &Ctx, name: &str) -> inbox::Author {
    support::bus::author(ctx, name, None).await.author
}

/// The titles of a caller's memories, sorted.
async fn titles(ctx: &Ctx, caller: &Caller) -> Vec<String> {
    let mut out: Vec<String> = memory::list(ctx, caller, None, None)
        .await
        .unwrap()
        .into_iter()
        .map(|m| m.title)
        .collect();
    out.sort();
    out
}

async fn as_role(ctx: &Ctx, role: &str) -> Caller {
    memory::role_caller(ctx, &Caller::ui(ctx), role)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_roles_memories_are_its_own_through_every_tool_and_delegation() {
    let call = |name: &str, args: &str| Rule::tool_call(name, args);
    let rules = vec![
        // The coordinator saves, tries to write into another role's scope
        // by naming it, searches (its owner's memory must not come back),
        // finds its own memory through the catalog search, and delegates.
        call(
            "memory_write",
            r#"{"title": "cliente", "content": "Aurin prefiere informes en PDF"}"#,
        )
        .when(when("You are Ambrosio", 0)),
        call(
            "memory_write",
            r#"{"title": "intruso", "content": "x", "user": "@clonador"}"#,
        )
        .when(when("You are Ambrosio", 1)),
        call("memory_search", r#"{"query": "clave dueño"}"#).when(when("You are Ambrosio", 2)),
        call("search_catalog", r#"{"query": "Aurin PDF"}"#).when(when("You are Ambrosio", 3)),
        call(
            "delegate_task",
            r#"{"agent_id": "ayudante", "task": "Guarda que el martes hay reunión."}"#,
        )
        .when(when("You are Ambrosio", 4)),
        Rule::text("Hecho.").when(when("You are Ambrosio", 5)),
        // The agent it delegates to saves a memory: still the role's.
        call(
            "memory_write",
            r#"{"title": "reunion", "content": "El martes hay reunión"}"#,
        )
        .when(when("You are Ayudante", 0)),
        Rule::text("Guardado.").when(when("You are Ayudante", 1)),
        // The other role looks for it by title and by words.
        call("memory_read", r#"{"title": "cliente"}"#).when(when("You are Clonador", 0)),
        call("memory_search", r#"{"query": "Aurin PDF"}"#).when(when("You are Clonador", 1)),
        Rule::text("No sé nada de Aurin.").when(when("You are Clonador", 2)),
    ];
    let (ws, server) = hive(rules).await;
    let ctx = &ws.ctx;
    let tools = [
        "memory_write",
        "memory_search",
        "search_catalog",
        "delegate_task",
    ];
    let ambrosio = agent(ctx, "Ambrosio", "You are Ambrosio.", &tools).await;
    let ayudante = agent(ctx, "Ayudante", "You are Ayudante.", &["memory_write"]).await;
    support::hive::hands_work_to(ctx, &ambrosio, &[&ayudante]).await;
    agent(
        ctx,
        "Clonador",
        "You are Clonador.",
        &["memory_read", "memory_search"],
    )
    .await;
    // The role's id is not its agent's: the scope is the role's.
    let coordinador = role(ctx, "Coordinador", "ambrosio", None, &[]).await;
    let clonador = role(ctx, "Clonador", "clonador", None, &[]).await;
    let ana = person(ctx, "Ana").await;
    // The owner's own memory, which no role's search may return.
    memory::write(ctx, &Caller::ui(ctx), "clave", "la clave del dueño es 7731")
        .await
        .unwrap();

    send(
        ctx,
        &ana.id,
        &coordinador.id,
        "Aurin quiere PDF; el martes, reunión.",
        "normal",
    )
    .await;
    let woken = colmena_core::roles::wakes::wake_now(ctx, &coordinador.id)
        .await
        .unwrap();
    assert!(
        woken.last_wake_error.is_none(),
        "{:?}",
        woken.last_wake_error
    );
    send(ctx, &ana.id, &clonador.id, "¿Qué sabes de Aurin?", "normal").await;
    let woken = colmena_core::roles::wakes::wake_now(ctx, &clonador.id)
        .await
        .unwrap();
    assert!(
        woken.last_wake_error.is_none(),
        "{:?}",
        woken.last_wake_error
    );

    // The role's memories — its own and its delegate's — under `@coordinador`.
    let mine = as_role(ctx, &coordinador.id).await;
    assert_eq!(titles(ctx, &mine).await, ["cliente", "reunion"]);
    let kept = memory::read(ctx, &mine, "cliente").await.unwrap();
    assert_eq!(kept.user_id, "@coordinador");
    // Not the owner's, and nothing landed where the tool argument pointed.
    assert_eq!(titles(ctx, &Caller::ui(ctx)).await, ["clave"]);
    assert!(
        titles(ctx, &as_role(ctx, &clonador.id).await)
            .await
            .is_empty()
    );

    let bodies: Vec<(String, String)> = server
        .requests()
        .iter()
        .map(|r| {
            let body = r.body.to_string();
            let who = ["Ambrosio", "Ayudante", "Clonador"]
                .into_iter()
                .find(|n| body.contains(&format!("You are {n}")))
                .unwrap_or("?")
                .to_owned();
            (who, body)
        })
        .collect();
    let of = |who: &str| -> Vec<&String> {
        bodies
            .iter()
            .filter(|(w, _)| w == who)
            .map(|(_, b)| b)
            .collect()
    };
    // A naming argument is refused, not obeyed.
    let after_intruder = of("Ambrosio")[2];
    assert!(after_intruder.contains("user"), "{after_intruder}");
    // The role's searches found its own memory and never its owner's.
    assert!(of("Ambrosio").iter().all(|b| !b.contains("7731")));
    let after_catalog = of("Ambrosio")[4];
    assert!(
        after_catalog.contains("Aurin prefiere informes en PDF"),
        "{after_catalog}"
    );
    // The other role found nothing: not by title, not by words.
    let clonador_last = of("Clonador").last().copied().unwrap();
    assert!(clonador_last.contains("does not exist"), "{clonador_last}");
    assert!(of("Clonador").iter().all(|b| !b.contains("Aurin prefiere")));

    // The person tidies the role's memories as the role.
    memory::delete(ctx, &mine, "reunion").await.unwrap();
    assert_eq!(titles(ctx, &mine).await, ["cliente"]);
    let hits = memory::search(ctx, &mine, "Aurin", None).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert!(
        memory::search(ctx, &Caller::ui(ctx), "Aurin", None)
            .await
            .unwrap()
            .is_empty()
    );
}

#[tokio::test]
async fn only_the_local_doors_read_a_role_and_no_one_names_its_scope() {
    let (ws, _server) = hive(Vec::new()).await;
    let ctx = &ws.ctx;
    agent(ctx, "Ambrosio", "You are Ambrosio.", &[]).await;
    let coordinador = role(ctx, "Coordinador", "ambrosio", None, &[]).await;
    let ana = person(ctx, "Ana").await;

    // A person's id never begins with `@`: `--user @coordinador` (or any
    // named user) does not reach the role's scope.
    let err = colmena_core::users::check_user("@coordinador").unwrap_err();
    assert_eq!(err.code, ErrorCode::Validation);
    assert_eq!(err.details.unwrap()["reason"], "role_scope");
    let named = Caller::cli(ctx, Some("@coordinador"));
    assert_eq!(
        memory::write(ctx, &named, "t", "x").await.unwrap_err().code,
        ErrorCode::Validation
    );
    assert!(
        titles(ctx, &as_role(ctx, &coordinador.id).await)
            .await
            .is_empty()
    );

    // A token — a person's or a role's — may not read a role as a role.
    for token_of in [&ana.id, &coordinador.id] {
        let remote = colmena_core::inbox::authors::caller_as(
            ctx,
            token_of,
            colmena_core::caller::Client::Http,
        )
        .await
        .unwrap();
        let refused = memory::role_caller(ctx, &remote, &coordinador.id)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
    }
    // And a role's token has no memories of a person.
    let role_token = colmena_core::inbox::authors::caller_as(
        ctx,
        &coordinador.id,
        colmena_core::caller::Client::Http,
    )
    .await
    .unwrap();
    let refused = colmena_core::contracts::hive::memory_search(
        ctx,
        &role_token,
        colmena_core::contracts::hive::SearchArgs {
            query: "x".into(),
            limit: None,
        },
    )
    .await
    .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Forbidden);

    // The person asks for a role: a person's author (the owner's) or an
    // unknown id is not one.
    let not_role = memory::role_caller(ctx, &Caller::ui(ctx), ctx.owner())
        .await
        .unwrap_err();
    assert_eq!(not_role.details.unwrap()["reason"], "not_a_role");
    let unknown = memory::role_caller(ctx, &Caller::ui(ctx), "nadie")
        .await
        .unwrap_err();
    assert_eq!(unknown.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn a_roles_instructions_and_own_skills_reach_its_system_prompt_only() {
    let rules = vec![Rule::text("Entendido.").repeat()];
    let (ws, server) = hive(rules).await;
    let ctx = &ws.ctx;
    let skill = |name: &str, body: &str| SkillDraft {
        name: name.into(),
        description: format!("When {name} applies."),
        body: body.into(),
        ..Default::default()
    };
    skills::create(
        ctx,
        skill("informes-pdf", "Los informes salen en PDF, firmados."),
    )
    .await
    .unwrap();
    skills::create(ctx, skill("apagada", "Texto de una habilidad apagada."))
        .await
        .unwrap();
    agent(ctx, "Ambrosio", "You are Ambrosio.", &[]).await;
    let coordinador = role(
        ctx,
        "Coordinador",
        "ambrosio",
        Some("Firma siempre como el coordinador de Aurin."),
        &["informes-pdf", "apagada"],
    )
    .await;
    skills::switch(ctx, "apagada", Some(false)).await.unwrap();
    // Another role played by the same agent, with no scope of its own.
    let suplente = role(ctx, "Suplente", "ambrosio", None, &[]).await;
    let ana = person(ctx, "Ana").await;

    send(ctx, &ana.id, &coordinador.id, "Hola.", "normal").await;
    colmena_core::roles::wakes::wake_now(ctx, &coordinador.id)
        .await
        .unwrap();
    send(ctx, &ana.id, &suplente.id, "Hola.", "normal").await;
    colmena_core::roles::wakes::wake_now(ctx, &suplente.id)
        .await
        .unwrap();

    let requests = server.requests();
    assert_eq!(requests.len(), 2, "one model call per wake-up");
    let system = |i: usize| -> String {
        let messages = requests[i].body["messages"].as_array().unwrap().clone();
        messages
            .iter()
            .filter(|m| m["role"] == "system")
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .collect::<Vec<_>>()
            .join("\n")
    };
    let (first, second) = (system(0), system(1));
    assert!(first.contains("You are Ambrosio"), "{first}");
    assert!(
        first.contains("Firma siempre como el coordinador de Aurin."),
        "{first}"
    );
    assert!(
        first.contains("Los informes salen en PDF, firmados."),
        "{first}"
    );
    // A switched-off skill is not told.
    assert!(!first.contains("Texto de una habilidad apagada"), "{first}");
    // The same agent as another role carries none of it.
    assert!(second.contains("You are Ambrosio"), "{second}");
    assert!(!second.contains("Firma siempre"), "{second}");
    assert!(!second.contains("Los informes salen en PDF"), "{second}");
}
