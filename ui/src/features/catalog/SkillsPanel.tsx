// Skills: the list (filterable) with the folders found on disk that are not
// imported yet, and the selected skill's editor.

import { useState } from "react";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useTranslation } from "react-i18next";
import { BookOpen, FolderOpen, Plus } from "lucide-react";

import { api, desktopApi, type ApiError, type Skill } from "../../api";
import { Banner } from "../../components/Banner";
import { Button } from "../../components/Button";
import { filterList, ListFilter } from "../../components/ListFilter";
import { ListItem } from "../../components/ListItem";
import { guardLeave } from "../../components/SaveBar";
import { useUndo } from "../../components/UndoToast";
import { shortcutTitle, useShortcutAction } from "../../app/shortcutsHooks";
import { errorText } from "../../app/errorText";
import { catalogKeys, diskSkillsQuery, skillsQuery } from "./queries";
import { SkillEditor } from "./SkillEditor";
import { skillTitle } from "./skillName";
import { OffBadge } from "./SkillToggles";

export function SkillsPanel() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const skills = useQuery(skillsQuery);
  const disk = useQuery(diskSkillsQuery);
  const [selected, setSelected] = useState<string | "new" | null>(null);
  const [filter, setFilter] = useState("");
  const undo = useUndo();
  const list = (skills.data ?? []).filter((s) => !undo.isHidden(`skill:${s.id}`));
  const current = selected === "new" ? undefined : list.find((s) => s.id === selected) ?? (selected === null ? list[0] : undefined);
  const shown = filterList(list, filter, (s) => [skillTitle(s), s.id, s.description]);
  const select = (id: string | "new") => {
    if (id === selected || (id === current?.id && selected !== "new")) return;
    guardLeave(() => setSelected(id));
  };
  useShortcutAction("new", () => select("new"), "catalog/skills");

  const onImported = (skill: Skill | null) => {
    if (!skill) return;
    void client.invalidateQueries({ queryKey: catalogKeys.skills });
    void client.invalidateQueries({ queryKey: catalogKeys.diskSkills });
    guardLeave(() => setSelected(skill.id));
  };
  // A folder listed here is imported by its listed path; any other one is
  // chosen in the folder picker the backend opens.
  const importFrom = useMutation<Skill | null, ApiError, string | null>({
    mutationFn: (path) => (path ? api.importSkill(path) : desktopApi.importSkillFolder(t("skills.pickFolder"))),
    onSuccess: onImported,
  });
  const chooseFolder = () => importFrom.mutate(null);
  const notImported = (disk.data ?? []).filter((d) => !d.imported || d.error);

  return (
    <div className="split">
      <aside className="list-pane">
        <div className="button-row">
          <Button variant="primary" icon={<Plus size={16} />} onClick={() => select("new")} title={shortcutTitle(t("skills.new"), "new")} data-testid="new-skill">
            {t("skills.new")}
          </Button>
          <Button icon={<FolderOpen size={16} />} onClick={chooseFolder} busy={importFrom.isPending}>
            {t("skills.import")}
          </Button>
        </div>
        {importFrom.error && <Banner tone="danger">{errorText(t, importFrom.error)}</Banner>}
        {list.length > 0 && (
          <ListFilter value={filter} onChange={setFilter} label={t("forms.filter.skills")} shown={shown.length} total={list.length} testId="skills-filter" />
        )}
        {filter && shown.length === 0 && <p className="muted small list-empty">{t("forms.filter.none")}</p>}
        <ul className="item-list" aria-label={t("catalog.tabs.skills")}>
          {shown.map((skill) => (
            <ListItem
              key={skill.id}
              active={skill.id === current?.id && selected !== "new"}
              off={!skill.active}
              icon={<BookOpen size={15} />}
              title={skillTitle(skill)}
              // Off: said on the line under the title (the title is cut
              // with an ellipsis, which hid the badge); on: its id.
              sub={skill.active ? <span className="mono">{skill.id}</span> : <OffBadge kind="skill" />}
              onSelect={() => select(skill.id)}
              testId={`skill-${skill.id}`}
            />
          ))}
        </ul>
        {notImported.length > 0 && (
          <section className="disk-skills" aria-label={t("skills.onDisk")}>
            <h4 className="models-title">{t("skills.onDisk")}</h4>
            {notImported.map((d) => (
              <div key={d.path} className="disk-skill" title={d.path}>
                <span className="mono small">{d.folderName}</span>
                {d.error ? (
                  <span className="field-error small">{d.error}</span>
                ) : (
                  <Button size="sm" onClick={() => importFrom.mutate(d.path)}>
                    {t("skills.importOne")}
                  </Button>
                )}
              </div>
            ))}
          </section>
        )}
      </aside>
      <div className="detail-pane">
        {selected === "new" && <SkillEditor key="new" onSaved={(s) => setSelected(s.id)} onDeleted={() => setSelected(null)} />}
        {selected !== "new" && current && (
          <SkillEditor
            key={current.id}
            skill={current}
            onSaved={(s) => setSelected(s.id)}
            onDeleted={() => setSelected(null)}
            onRestored={(id) => setSelected(id)}
          />
        )}
      </div>
    </div>
  );
}
