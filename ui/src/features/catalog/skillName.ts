// The name a skill is shown by: the title its markdown opens with
// ("# Web research"), else its id in words ("meeting-minutes" → "Meeting
// minutes"). The id stays what agents and files refer to.

export function skillTitle(skill: { id: string; body: string }): string {
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(skill.body);
  if (heading?.[1]) return heading[1];
  const words = skill.id.replace(/[-_]+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The first sentence or line of a description, for a one-line summary. */
export function oneLine(text: string): string {
  const line = text.trim().split(/\n/)[0] ?? "";
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}
