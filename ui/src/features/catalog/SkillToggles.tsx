// The skills an agent is given, as named toggles: each skill by its name
// and what it is for, with a clear badge when the skill itself is switched
// off in Skills (the agent gets it only once it is on again).

import { useState } from "react";
import { useTranslation } from "react-i18next";

import type { Skill } from "../../api";
import { filterList, ListFilter } from "../../components/ListFilter";
import { oneLine, skillTitle } from "./skillName";

/** Above this many skills the list gets a filter box. */
const FILTER_FROM = 7;

export function OffBadge({ kind }: { kind: "skill" | "agent" | "tool" }) {
  const { t } = useTranslation();
  return (
    <span className="badge badge-off" data-testid="off-badge">
      {t(`forms.offBadge.${kind}`)}
    </span>
  );
}

interface SkillTogglesProps {
  skills: readonly Skill[];
  chosen: string[];
  onChange(next: string[]): void;
  /** Switches a skill on in the catalog (the "Turn on" by its pill). */
  onTurnOn?(id: string): void;
}

export function SkillToggles({ skills, chosen, onChange, onTurnOn }: SkillTogglesProps) {
  const { t } = useTranslation();
  const [filter, setFilter] = useState("");
  const shown = filterList(skills, filter, (s) => [skillTitle(s), s.id, s.description]);
  const toggle = (id: string) => onChange(chosen.includes(id) ? chosen.filter((s) => s !== id) : [...chosen, id]);
  return (
    <div className="skill-toggles">
      {skills.length >= FILTER_FROM && (
        <ListFilter value={filter} onChange={setFilter} label={t("forms.filter.skills")} shown={shown.length} total={skills.length} testId="agent-skills-filter" />
      )}
      <ul className="skill-toggle-list">
        {shown.map((skill) => {
          const on = chosen.includes(skill.id);
          return (
            <li key={skill.id} className={!skill.active && onTurnOn ? "with-turn-on" : undefined}>
              <button
                type="button"
                role="switch"
                aria-checked={on}
                className={on ? "skill-toggle on" : "skill-toggle"}
                title={skill.active ? skill.id : `${skill.id} — ${t("forms.skills.offHint")}`}
                onClick={() => toggle(skill.id)}
                data-testid={`skill-toggle-${skill.id}`}
              >
                <span className="switch-look" aria-hidden="true">
                  <span className="switch-thumb" />
                </span>
                <span className="skill-toggle-text">
                  <span className="skill-toggle-name">
                    {skillTitle(skill)}
                    {!skill.active && <OffBadge kind="skill" />}
                  </span>
                  {skill.description && <span className="skill-toggle-sub">{oneLine(skill.description)}</span>}
                </span>
              </button>
              {!skill.active && onTurnOn && (
                <button type="button" className="link skill-turn-on" onClick={() => onTurnOn(skill.id)} data-testid={`skill-turn-on-${skill.id}`}>
                  {t("forms.skills.turnOn")}
                </button>
              )}
            </li>
          );
        })}
      </ul>
    </div>
  );
}
