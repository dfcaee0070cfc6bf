// The agents list and editor as a person uses them, against a scripted
// backend: grouping and filtering, the Save bar, leaving with unsaved
// changes, tools picked as chips, skills as named toggles with their badge.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

import type { Agent, Skill, Tool } from "../../api";
import { UndoProvider } from "../../components/UndoToast";
import i18n from "../../i18n";
import { AgentsPanel, groupOf } from "./AgentsPanel";

const permissions = { read: "allow", write: "ask", run: "ask", network: "ask", send: "ask", act: "ask", localNetwork: false } as const;

function agent(id: string, name: string, extra: Partial<Agent> = {}): Agent {
  return {
    id,
    name,
    description: "",
    systemPrompt: "",
    modelId: null,
    enabled: true,
    persona: null,
    toolPatterns: ["web_search"],
    tools: ["web_search"],
    skills: [],
    mcpServers: [],
    permissions,
    createdAt: "2026-01-01T00:00:00Z",
    updatedAt: "2026-01-01T00:00:00Z",
    ...extra,
  } as Agent;
}

const tool = (id: string, description: string, active = true): Tool =>
  ({ id, displayName: id, description, category: "web", parameters: {}, source: "builtin", active, minimal: false, customized: false, updatedAt: "" }) as unknown as Tool;

const skill = (id: string, body: string, description: string, active: boolean): Skill =>
  ({ id, description, body, license: null, compatibility: null, metadata: {}, allowedTools: null, extra: {}, origin: "bundled", sourcePath: null, active, usedBy: [], createdAt: "", updatedAt: "" }) as unknown as Skill;

const backend = {
  agents: [] as Agent[],
  updates: [] as { id: string; input: Record<string, unknown> }[],
  deleted: [] as string[],
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {
      listAgents: async () => backend.agents,
      listTools: async () => [tool("web_search", "Searches the web"), tool("web_fetch", "Fetches one page"), tool("cli_exec", "Runs a program", false)],
      listSkills: async () => [
        skill("web-research", "# Web research\n\nHow to research.", "How to look things up and cite them.", true),
        skill("meeting-minutes", "Write minutes.", "Turns a meeting into minutes.", false),
      ],
      listModels: async () => [],
      expandToolPatterns: async (patterns: string[]) => ({ patterns: patterns.map((p) => ({ pattern: p, tools: [] })), tools: [], invalid: [] }),
      deleteAgent: async (id: string) => {
        backend.deleted.push(id);
        return null;
      },
      updateAgent: async (id: string, input: Record<string, unknown>) => {
        backend.updates.push({ id, input });
        const was = backend.agents.find((a) => a.id === id) as Agent;
        return { ...was, ...input, toolPatterns: input.tools, updatedAt: "2026-01-02T00:00:00Z" };
      },
    },
    runtimeApi: { defaultModel: async () => null },
    mcpApi: {
      list: async () => [
        {
          id: "everything",
          name: "Everything",
          transport: { kind: "stdio", command: "mcp-server-everything", args: ["stdio"], env: [], cwd: null },
          enabled: true,
          timeoutSeconds: 120,
          preset: null,
          status: { state: "running", error: null, stderrTail: null, exitCode: null, since: null },
          tools: [
            { id: "mcp__everything__echo", name: "echo", description: "Echoes", active: true },
            { id: "mcp__everything__add", name: "add", description: "Adds", active: true },
          ],
          createdAt: "",
          updatedAt: "",
        },
      ],
    },
  };
});

function renderPanel() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      {/* An Undo window that outlasts any test: deleting is only scheduled. */}
      <UndoProvider delayMs={3_600_000} describe={String}>
        <AgentsPanel />
      </UndoProvider>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  backend.updates = [];
  backend.deleted = [];
  backend.agents = [
    agent("diseno", "Diseño"),
    agent("web_researcher", "Web researcher", { persona: "web_researcher" }),
    agent("software_engineer", "Software engineer", { persona: "software_engineer", enabled: false }),
  ];
});

afterEach(async () => {
  await act(() => i18n.changeLanguage("en"));
});

describe("the agents list", () => {
  it("groups an agent by who made it and whether it is on", () => {
    expect(groupOf({ persona: null, enabled: false })).toBe("yours");
    expect(groupOf({ persona: "x", enabled: true })).toBe("specialistsOn");
    expect(groupOf({ persona: "x", enabled: false })).toBe("specialistsOff");
  });

  it("shows Yours, Specialists on and Specialists off, and the filter narrows them", async () => {
    renderPanel();
    const yours = await screen.findByTestId("agents-group-yours");
    expect(within(yours).getByText("Yours")).toBeInTheDocument();
    expect(within(yours).getByTestId("agent-diseno")).toBeInTheDocument();
    expect(within(screen.getByTestId("agents-group-specialistsOn")).getByTestId("agent-web_researcher")).toBeInTheDocument();
    expect(within(screen.getByTestId("agents-group-specialistsOff")).getByTestId("agent-software_engineer")).toBeInTheDocument();

    fireEvent.change(screen.getByRole("searchbox", { name: "Filter agents" }), { target: { value: "soft" } });
    expect(screen.queryByTestId("agents-group-yours")).toBeNull();
    expect(screen.queryByTestId("agents-group-specialistsOn")).toBeNull();
    expect(screen.getByTestId("agent-software_engineer")).toBeInTheDocument();
    expect(screen.getByTestId("agents-filter-count")).toHaveTextContent("1 of 3");
  });

  it("shows the shortcut in the New agent tooltip", async () => {
    renderPanel();
    expect(await screen.findByTestId("new-agent")).toHaveAttribute("title", "New agent (Ctrl+N)");
  });
});

describe("the agent editor", () => {
  it("counts the changed fields in the Save bar, and Discard puts them back", async () => {
    renderPanel();
    const name = await screen.findByLabelText("Name");
    const status = screen.getByTestId("save-bar-status");
    expect(status).toHaveTextContent("All changes saved");
    expect(screen.getByTestId("save-agent")).toBeDisabled();

    fireEvent.change(name, { target: { value: "Diseño gráfico" } });
    expect(status).toHaveTextContent("1 unsaved change");
    fireEvent.change(screen.getByLabelText("Description"), { target: { value: "Draws" } });
    expect(status).toHaveTextContent("2 unsaved changes");
    expect(status).toHaveAttribute("title", "Changed: Name, Description");
    expect(screen.getByTestId("save-agent")).toBeEnabled();

    fireEvent.click(screen.getByTestId("discard-changes"));
    expect(name).toHaveValue("Diseño");
    expect(status).toHaveTextContent("All changes saved");
  });

  it("asks before leaving unsaved changes for another agent", async () => {
    renderPanel();
    fireEvent.change(await screen.findByLabelText("Name"), { target: { value: "Otra" } });
    fireEvent.click(screen.getByTestId("agent-web_researcher"));
    const dialog = await screen.findByTestId("leave-dialog");
    expect(dialog).toHaveTextContent("Leave without saving?");

    fireEvent.click(screen.getByTestId("keep-editing"));
    expect(screen.queryByTestId("leave-dialog")).toBeNull();
    expect(screen.getByLabelText("Name")).toHaveValue("Otra");

    fireEvent.click(screen.getByTestId("agent-web_researcher"));
    fireEvent.click(await screen.findByTestId("discard-and-leave"));
    await waitFor(() => expect(screen.getByLabelText("Name")).toHaveValue("Web researcher"));

    // Nothing changed there: moving on asks nothing.
    fireEvent.click(screen.getByTestId("agent-diseno"));
    await waitFor(() => expect(screen.getByLabelText("Name")).toHaveValue("Diseño"));
    expect(screen.queryByTestId("leave-dialog")).toBeNull();
  });

  it("picks tools as chips from the catalog and saves them", async () => {
    const user = userEvent.setup();
    renderPanel();
    await screen.findByTestId("tool-chip-web_search");
    const box = screen.getByRole("combobox", { name: "Tools" });
    await user.type(box, "fetch");
    const suggestion = await screen.findByTestId("suggest-web_fetch");
    expect(suggestion).toHaveTextContent("Fetches one page");
    await user.keyboard("{Enter}");
    expect(screen.getByTestId("tool-chip-web_fetch")).toBeInTheDocument();
    expect(screen.getByTestId("save-bar-status")).toHaveTextContent("1 unsaved change");

    // A switched-off tool is offered, marked off.
    await user.type(box, "program");
    expect(within(await screen.findByTestId("suggest-cli_exec")).getByText("off")).toBeInTheDocument();
    await user.keyboard("{Escape}");

    fireEvent.click(screen.getByRole("button", { name: "Remove web_search" }));
    fireEvent.click(screen.getByTestId("save-agent"));
    await waitFor(() => expect(backend.updates).toHaveLength(1));
    expect(backend.updates[0]?.input.tools).toEqual(["web_fetch"]);
  });

  it("keeps patterns in the advanced mode, with the same list", async () => {
    renderPanel();
    await screen.findByTestId("tool-chip-web_search");
    fireEvent.click(screen.getByTestId("tools-advanced"));
    const text = screen.getByLabelText("Tools");
    expect(text).toHaveValue("web_search");
    fireEvent.change(text, { target: { value: "web_*, fs_read" } });
    fireEvent.click(screen.getByTestId("tools-advanced"));
    expect(screen.getByTestId("tool-chip-web_*")).toBeInTheDocument();
    expect(screen.getByTestId("tool-chip-fs_read")).toHaveAttribute("title", expect.stringMatching(/No tool has this name/));
  });

  it("shows skills by name and description, toggled on and off", async () => {
    renderPanel();
    const research = await screen.findByTestId("skill-toggle-web-research");
    expect(research).toHaveTextContent("Web research");
    expect(research).toHaveTextContent("How to look things up and cite them.");
    expect(research).toHaveAttribute("aria-checked", "false");
    fireEvent.click(research);
    expect(research).toHaveAttribute("aria-checked", "true");
    fireEvent.click(screen.getByTestId("save-agent"));
    await waitFor(() => expect(backend.updates).toHaveLength(1));
    expect(backend.updates[0]?.input.skills).toEqual(["web-research"]);
  });

  it("gives an MCP server's tools with its toggle, saved as mcpServers", async () => {
    renderPanel();
    const everything = await screen.findByTestId("mcp-toggle-everything");
    expect(everything).toHaveTextContent("Everything");
    expect(everything).toHaveTextContent("2 tools");
    expect(screen.queryByTestId("agent-mcp-tools")).toBeNull();
    fireEvent.click(everything);
    const given = screen.getByTestId("agent-mcp-tools");
    expect(given).toHaveTextContent("Gives 2 tools:");
    expect(within(given).getByText("mcp__everything__echo")).toBeInTheDocument();
    expect(within(given).getByText("mcp__everything__add")).toBeInTheDocument();
    expect(screen.getByTestId("save-bar-status")).toHaveTextContent("1 unsaved change");
    fireEvent.click(screen.getByTestId("save-agent"));
    await waitFor(() => expect(backend.updates).toHaveLength(1));
    expect(backend.updates[0]?.input.mcpServers).toEqual(["everything"]);
  });

  it("deleting hides the agent at once and Undo brings it back, with nothing deleted", async () => {
    renderPanel();
    await screen.findByLabelText("Name");
    fireEvent.click(screen.getByTestId("delete-agent"));
    expect(screen.queryByTestId("agent-diseno")).toBeNull();
    expect(screen.getByTestId("undo-toast")).toHaveTextContent("Deleted «Diseño»");
    fireEvent.click(within(screen.getByTestId("undo-toast")).getByRole("button", { name: "Undo" }));
    expect(await screen.findByTestId("agent-diseno")).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveValue("Diseño");
    expect(backend.deleted).toEqual([]);
  });

  it("marks a switched-off skill with a proper badge in Spanish, not “(No)”", async () => {
    await act(() => i18n.changeLanguage("es"));
    renderPanel();
    const minutes = await screen.findByTestId("skill-toggle-meeting-minutes");
    expect(minutes).toHaveTextContent("Meeting minutes");
    expect(within(minutes).getByTestId("off-badge")).toHaveTextContent("desactivada en el catálogo");
    expect(minutes.textContent).not.toMatch(/\(No\)/);
    expect(screen.getByTestId("skill-toggle-web-research").textContent).not.toMatch(/desactivada/);
  });
});
