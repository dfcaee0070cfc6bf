//! The words of a notice Colmena composes, in the person's language (issue
//! 15): core writes its notices in English and names their topic
//! ([`NoticeTopic`]); the desktop notification is worded here from the very
//! catalog the window uses (`ui/src/i18n/locales/<lang>/noticeTopics.json`,
//! compiled in), so the toast and the OS notification always say the same.
//! An agent's own notice (`notify_user`) keeps its words but is titled as
//! a message from an agent, naming the role or agent: its text may be an
//! outsider's, and must not pass for Colmena's.

use std::path::Path;
use std::sync::OnceLock;

use colmena_core::{Notice, NoticeTopic};
use serde_json::Value;

const EN: &str = include_str!("../../ui/src/i18n/locales/en/noticeTopics.json");
const ES: &str = include_str!("../../ui/src/i18n/locales/es/noticeTopics.json");

/// The language the person chose in the window, else the system's (`LANG`).
pub fn language(data_dir: &Path) -> &'static str {
    let chosen = crate::ui_prefs::read(data_dir).language;
    let system = || {
        std::env::var("LC_ALL")
            .or_else(|_| std::env::var("LANG"))
            .ok()
    };
    match chosen.or_else(system) {
        Some(lang) if lang.starts_with("es") => "es",
        _ => "en",
    }
}

/// The title and body to show for `notice` in `lang` ("en" or "es").
pub fn worded(notice: &Notice, lang: &str) -> (String, String) {
    let Some(topic) = &notice.topic else {
        return (notice.title.clone(), notice.body.clone());
    };
    let say = |key: &str, vars: &[(&str, &str)]| text(lang, key, vars);
    match topic {
        NoticeTopic::UrgentMail { sender } => (
            say("urgentMail.title", &[("sender", sender)]),
            notice.body.clone(),
        ),
        NoticeTopic::JobFailed { job, .. } => {
            (say("jobFailed.title", &[("job", job)]), notice.body.clone())
        }
        NoticeTopic::JobDone { job, .. } => {
            (say("jobDone.title", &[("job", job)]), notice.body.clone())
        }
        NoticeTopic::Approval { agent, tool, risk } => {
            let risk = say(&format!("approval.risk.{}", risk.as_str()), &[]);
            (
                say("approval.title", &[("agent", agent), ("tool", tool)]),
                say("approval.body", &[("risk", &risk)]),
            )
        }
        NoticeTopic::AgentMessage { from, .. } => (
            say("agentMessage.title", &[("from", from)]),
            say(
                "agentMessage.body",
                &[("title", &notice.title), ("body", &notice.body)],
            ),
        ),
        NoticeTopic::WakeBudget {
            role,
            until,
            per_hour,
            per_day,
        } => (
            say("wakeBudget.title", &[("role", role)]),
            say(
                "wakeBudget.body",
                &[
                    ("until", &local_time(until)),
                    ("perHour", &per_hour.to_string()),
                    ("perDay", &per_day.to_string()),
                ],
            ),
        ),
    }
}

/// An RFC 3339 time as the person's clock shows it (hours and minutes).
fn local_time(rfc3339: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| t.with_timezone(&chrono::Local).format("%H:%M").to_string())
        .unwrap_or_else(|_| rfc3339.to_owned())
}

fn catalog(lang: &str) -> &'static Value {
    static CATALOGS: OnceLock<(Value, Value)> = OnceLock::new();
    let (en, es) = CATALOGS.get_or_init(|| {
        let parse = |text: &str| serde_json::from_str(text).unwrap_or(Value::Null);
        (parse(EN), parse(ES))
    });
    if lang == "es" { es } else { en }
}

/// Colmena's own words outside the window (the tray, its hint), from the
/// same catalog: `noticeTopics.<key>` in `lang`.
pub fn say(lang: &str, key: &str, vars: &[(&str, &str)]) -> String {
    text(lang, key, vars)
}

/// The message at `noticeTopics.<key>` with `{{name}}` filled in; English
/// when the language lacks it, the key itself when both do.
fn text(lang: &str, key: &str, vars: &[(&str, &str)]) -> String {
    let find = |lang: &str| {
        key.split('.')
            .try_fold(&catalog(lang)["noticeTopics"], |at, part| at.get(part))
            .and_then(Value::as_str)
    };
    let mut out = find(lang).or_else(|| find("en")).unwrap_or(key).to_owned();
    for (name, value) in vars {
        out = out.replace(&format!("{{{{{name}}}}}"), value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use colmena_core::permissions::Risk;

    fn notice(topic: Option<NoticeTopic>) -> Notice {
        Notice {
            title: "Urgent: Ana".into(),
            body: "the body".into(),
            urgent: true,
            from: None,
            topic,
        }
    }

    #[test]
    fn urgent_mail_reads_in_spanish_and_english() {
        let n = notice(Some(NoticeTopic::UrgentMail {
            sender: "Ana".into(),
        }));
        assert_eq!(worded(&n, "es"), ("Urgente: Ana".into(), "the body".into()));
        assert_eq!(worded(&n, "en"), ("Urgent: Ana".into(), "the body".into()));
    }

    #[test]
    fn an_approval_names_its_risk_in_the_language() {
        let n = notice(Some(NoticeTopic::Approval {
            agent: "Redactora".into(),
            tool: "cli_exec".into(),
            risk: Risk::Run,
        }));
        let (title, body) = worded(&n, "es");
        assert_eq!(title, "Redactora pide usar cli_exec");
        assert_eq!(
            body,
            "El agente ejecuta programas y te espera: permítelo o deniégalo en Colmena."
        );
        let (title, body) = worded(&n, "en");
        assert_eq!(title, "Redactora asks to use cli_exec");
        assert!(body.starts_with("The agent runs programs"), "{body}");
    }

    #[test]
    fn a_failed_job_and_an_agents_own_notice() {
        let n = notice(Some(NoticeTopic::JobFailed {
            job: "informe".into(),
            job_id: Some("informe".into()),
        }));
        assert_eq!(worded(&n, "es").0, "Falló la tarea programada: informe");
        let done = notice(Some(NoticeTopic::JobDone {
            job: "informe".into(),
            job_id: "informe".into(),
        }));
        assert_eq!(worded(&done, "es").0, "Tarea programada lista: informe");
        assert_eq!(worded(&done, "en").0, "Scheduled job done: informe");
        // An agent's own words are shown as written.
        let own = notice(None);
        assert_eq!(
            worded(&own, "es"),
            ("Urgent: Ana".into(), "the body".into())
        );
    }

    #[test]
    fn an_agents_notice_is_labelled_as_an_agents_message() {
        let n = notice(Some(NoticeTopic::AgentMessage {
            from: "builder".into(),
            unattended: true,
        }));
        let (title, body) = worded(&n, "en");
        assert_eq!(title, "Message from an agent: builder");
        assert!(
            body.contains("Urgent: Ana") && body.contains("the body"),
            "{body}"
        );
        assert_eq!(worded(&n, "es").0, "Mensaje de un agente: builder");
    }

    #[test]
    fn every_risk_is_worded_in_both_catalogs() {
        for risk in Risk::ALL {
            for lang in ["en", "es"] {
                let key = format!("approval.risk.{}", risk.as_str());
                assert_ne!(text(lang, &key, &[]), key, "{lang} lacks {key}");
            }
        }
    }
}
