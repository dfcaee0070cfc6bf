// Catalog → MCP servers as a person uses it, against a scripted backend:
// the list with each server's state, adding one (saved, then tested, its
// tools shown in the dialog), field errors next to their fields, a stored
// secret kept on edit, presets, and the import's preview and summary.

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { beforeEach, describe, expect, it, vi } from "vitest";

import type { McpServer, McpServerInput } from "../../api";
import { UndoProvider } from "../../components/UndoToast";
import { McpServersPanel } from "./McpServersPanel";

const status = (state: McpServer["status"]["state"], extra: Partial<McpServer["status"]> = {}) => ({
  state,
  error: null,
  stderrTail: null,
  exitCode: null,
  since: null,
  ...extra,
});

function server(id: string, extra: Partial<McpServer> = {}): McpServer {
  return {
    id,
    name: id,
    transport: { kind: "stdio", command: "npx", args: ["-y", `@example/${id}`], env: [], cwd: null },
    enabled: true,
    timeoutSeconds: 120,
    preset: null,
    status: status("stopped"),
    tools: [],
    createdAt: "",
    updatedAt: "",
    ...extra,
  } as McpServer;
}

const echo = { id: "mcp__everything__echo", name: "echo", description: "Echoes back the input", active: true };

const backend = {
  servers: [] as McpServer[],
  created: [] as McpServerInput[],
  updated: [] as { id: string; input: McpServerInput }[],
  tested: [] as string[],
  imported: [] as { text: string; options: Record<string, unknown> }[],
  createError: null as unknown,
};

vi.mock("../../api", async () => {
  const errors = await vi.importActual<typeof import("../../api/errors")>("../../api/errors");
  return {
    ...errors,
    api: {},
    mcpApi: {
      list: async () => backend.servers,
      create: async (input: McpServerInput) => {
        backend.created.push(input);
        if (backend.createError) throw backend.createError;
        const made = server("everything", { name: input.name, transport: { kind: "stdio", command: "/bin/everything", args: ["stdio"], env: [], cwd: null } });
        backend.servers = [...backend.servers, made];
        return made;
      },
      update: async (id: string, input: McpServerInput) => {
        backend.updated.push({ id, input });
        return backend.servers.find((s) => s.id === id);
      },
      test: async (id: string) => {
        backend.tested.push(id);
        return { ok: true, error: null, stderrTail: null, exitCode: null, tools: [echo] };
      },
      setEnabled: async () => null,
      remove: async () => null,
      presets: async () => [
        {
          id: "playwright",
          name: "Playwright browser",
          description: "A real Chromium.",
          missing: "Chromium is not installed (Debian: apt install chromium)",
          input: { name: "playwright", transport: { kind: "stdio", command: "npx", args: ["-y", "@playwright/mcp@0.0.83", "--headless"], env: [], cwd: null }, enabled: true, timeoutSeconds: 120, preset: "playwright" },
        },
      ],
      previewImport: async () => ({
        source: "mcp_servers",
        counts: { new: 1, exists: 0, invalid: 1, notSelected: 0 },
        notes: [],
        entries: [
          {
            name: "github",
            id: "github",
            status: "new",
            transport: "stdio",
            target: "npx -y @modelcontextprotocol/server-github",
            enabled: true,
            timeoutSeconds: null,
            secrets: ["GITHUB_TOKEN"],
            plainVars: [{ name: "LOG_LEVEL", value: "debug" }],
            cwd: "/srv/tools",
            references: [{ name: "GITHUB_TOKEN", set: false, hasDefault: false, sentTo: null }],
            ignored: [],
            notes: [],
            existing: null,
            problem: null,
          },
          {
            name: "old",
            id: "old",
            status: "invalid",
            transport: null,
            target: "",
            enabled: true,
            timeoutSeconds: null,
            secrets: [],
            plainVars: [],
            cwd: null,
            references: [],
            ignored: [],
            notes: [],
            existing: null,
            problem: { reason: "no_transport", message: "it has neither a command nor a url" },
          },
          {
            name: "remote",
            id: "remote",
            status: "exists",
            transport: "http",
            target: "https://x.example/mcp",
            enabled: true,
            timeoutSeconds: null,
            secrets: [],
            plainVars: [{ name: "Authorization", value: "Bearer ${API_KEY}" }],
            cwd: null,
            references: [{ name: "API_KEY", set: true, hasDefault: false, sentTo: "https://x.example" }],
            ignored: [],
            notes: [],
            existing: { id: "remote", name: "remote", matchedBy: "id" },
            problem: null,
          },
        ],
      }),
      importServers: async (text: string, options: Record<string, unknown>) => {
        backend.imported.push({ text, options });
        return { added: [server("github", { name: "github" })], skipped: [], invalid: [], failed: [], notSelected: [] };
      },
      pickConfigFile: async () => null,
    },
  };
});

function renderPanel() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <UndoProvider delayMs={3_600_000} describe={String}>
        <McpServersPanel />
      </UndoProvider>
    </QueryClientProvider>,
  );
}

beforeEach(() => {
  backend.servers = [];
  backend.created = [];
  backend.updated = [];
  backend.tested = [];
  backend.imported = [];
  backend.createError = null;
});

describe("the MCP servers list", () => {
  it("says how each server is reached and how it is doing, a failure with its stderr and exit code", async () => {
    backend.servers = [
      server("everything", { status: status("running"), tools: [echo] }),
      server("broken", { status: status("failed", { error: "the program exited with code 3\nmore", stderrTail: "Error: no token", exitCode: 3 }) }),
      server("remote", { enabled: false, status: status("disabled"), transport: { kind: "http", url: "https://mcp.example.com/mcp", headers: [] } }),
    ];
    renderPanel();
    const running = await screen.findByTestId("mcp-server-everything");
    expect(within(running).getByTestId("mcp-status")).toHaveTextContent("Running, 1 tool");
    expect(within(running).getByTestId("mcp-target")).toHaveTextContent("npx -y @example/everything");

    const broken = screen.getByTestId("mcp-server-broken");
    expect(within(broken).getByTestId("mcp-status")).toHaveTextContent("Failed: the program exited with code 3");
    expect(within(broken).getByTestId("mcp-exit-code")).toHaveTextContent("Exit code 3");
    expect(within(broken).getByTestId("mcp-stderr")).toHaveTextContent("Error: no token");

    const remote = screen.getByTestId("mcp-server-remote");
    expect(within(remote).getByTestId("mcp-status")).toHaveTextContent("Off");
    expect(within(remote).getByTestId("mcp-target")).toHaveTextContent("https://mcp.example.com/mcp");
    // A server that is off cannot be tested.
    expect(within(remote).getByTestId("mcp-test-remote")).toBeDisabled();
  });

  it("adds a server, tests it at once and shows its tools in the dialog", async () => {
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-add"));
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "everything" } });
    fireEvent.change(screen.getByLabelText("Command"), { target: { value: "/bin/everything" } });
    fireEvent.change(screen.getByLabelText("Arguments"), { target: { value: "stdio\n" } });
    fireEvent.click(screen.getByTestId("mcp-env-add"));
    fireEvent.change(screen.getByTestId("mcp-env-name-0"), { target: { value: "API_KEY" } });
    fireEvent.change(screen.getByTestId("mcp-env-value-0"), { target: { value: "sk-1" } });
    fireEvent.click(screen.getByTestId("mcp-env-secret-0"));
    expect(screen.getByTestId("mcp-env-value-0")).toHaveAttribute("type", "password");
    fireEvent.click(screen.getByTestId("mcp-save"));

    const result = await screen.findByTestId("mcp-test-result");
    expect(result).toHaveTextContent("It works: 1 tool");
    expect(within(result).getByTestId("mcp-tool-mcp__everything__echo")).toHaveTextContent("Echoes back the input");
    expect(backend.created).toEqual([
      {
        name: "everything",
        transport: { kind: "stdio", command: "/bin/everything", args: ["stdio"], env: [{ name: "API_KEY", value: "sk-1", secret: true }], cwd: null },
        enabled: true,
        timeoutSeconds: null,
        preset: null,
      },
    ]);
    expect(backend.tested).toEqual(["everything"]);
    // The dialog now edits what was saved.
    expect(screen.getByTestId("mcp-save")).toHaveTextContent("Save and test");
  });

  it("shows the backend's field errors next to their fields, and refuses a time limit that is not whole", async () => {
    const { ApiError } = await import("../../api/errors");
    backend.createError = new ApiError("validation", "the working folder must be an absolute path", {
      fields: [{ field: "cwd", reason: "not_absolute", message: "the working folder must be an absolute path" }],
    } as never);
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-add"));
    fireEvent.change(screen.getByLabelText("Name"), { target: { value: "x" } });
    fireEvent.change(screen.getByLabelText("Call time limit (seconds)"), { target: { value: "1.5" } });
    fireEvent.click(screen.getByTestId("mcp-save"));
    expect(await screen.findByTestId("error-mcp-timeout")).toHaveTextContent("whole number");
    expect(backend.created).toEqual([]);

    fireEvent.change(screen.getByLabelText("Call time limit (seconds)"), { target: { value: "30" } });
    fireEvent.change(screen.getByLabelText("Working folder (optional)"), { target: { value: "rel/dir" } });
    fireEvent.click(screen.getByTestId("mcp-save"));
    expect(await screen.findByTestId("error-mcp-cwd")).toHaveTextContent("Use an absolute path");
    expect(backend.tested).toEqual([]);
  });

  it("keeps a stored secret on edit unless it is retyped", async () => {
    backend.servers = [
      server("github", {
        transport: { kind: "stdio", command: "npx", args: [], env: [{ name: "GITHUB_TOKEN", value: "ghp_…9f2a", secret: true }], cwd: null },
      }),
    ];
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-edit-github"));
    const value = screen.getByTestId("mcp-env-value-0");
    expect(value).toHaveValue("");
    expect(value).toHaveAttribute("placeholder", "ghp_…9f2a");
    fireEvent.click(screen.getByTestId("mcp-save"));
    await waitFor(() => expect(backend.updated).toHaveLength(1));
    expect(backend.updated[0]?.input.transport).toMatchObject({ env: [{ name: "GITHUB_TOKEN", value: null, secret: true }] });
  });

  it("starts from a preset, warning what this computer lacks", async () => {
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-add-preset"));
    expect(await screen.findByTestId("mcp-preset-missing-playwright")).toHaveTextContent("Chromium is not installed");
    fireEvent.click(screen.getByTestId("mcp-preset-use-playwright"));
    expect(await screen.findByTestId("mcp-preset-missing")).toBeInTheDocument();
    expect(screen.getByLabelText("Name")).toHaveValue("playwright");
    expect(screen.getByLabelText("Arguments")).toHaveValue("-y\n@playwright/mcp@0.0.83\n--headless");
    fireEvent.click(screen.getByTestId("mcp-save"));
    await waitFor(() => expect(backend.created).toHaveLength(1));
    expect(backend.created[0]).toMatchObject({ preset: "playwright", timeoutSeconds: 120 });
  });

  it("previews an import, then imports the chosen new servers only", async () => {
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-import"));
    expect(screen.getByTestId("mcp-import-run")).toBeDisabled();
    fireEvent.change(screen.getByLabelText("Configuration (JSON)"), { target: { value: '{"mcpServers":{}}' } });
    fireEvent.click(screen.getByTestId("mcp-import-resolve"));
    fireEvent.click(screen.getByTestId("mcp-import-preview"));

    const github = await screen.findByTestId("mcp-import-entry-github");
    expect(github).toHaveTextContent("Will be added");
    expect(within(github).getByTestId("mcp-import-secrets")).toHaveTextContent("To the vault: GITHUB_TOKEN");
    expect(within(github).getByTestId("mcp-import-refs")).toHaveTextContent("${GITHUB_TOKEN} not set");
    // A program's references stay on this computer; its plain values and folder are shown.
    expect(within(github).queryByTestId("mcp-import-sent-GITHUB_TOKEN")).toBeNull();
    expect(within(github).getByTestId("mcp-import-plain")).toHaveTextContent("Plain variables: LOG_LEVEL=debug");
    expect(within(github).getByTestId("mcp-import-cwd")).toHaveTextContent("Runs in /srv/tools");
    // A URL server's are flagged with where they go.
    const remote = screen.getByTestId("mcp-import-entry-remote");
    expect(within(remote).getByTestId("mcp-import-sent-API_KEY")).toHaveTextContent("sent to https://x.example");
    expect(within(remote).getByTestId("mcp-import-plain")).toHaveTextContent("Plain headers: Authorization=Bearer ${API_KEY}");
    const old = screen.getByTestId("mcp-import-entry-old");
    expect(old).toHaveTextContent("Invalid");
    expect(old).toHaveTextContent("No command or URL");
    expect(within(old).getByRole("checkbox")).toBeDisabled();

    fireEvent.click(screen.getByTestId("mcp-import-run"));
    expect(await screen.findByTestId("mcp-import-summary")).toHaveTextContent("Added 1 server: github.");
    expect(backend.imported).toEqual([{ text: '{"mcpServers":{}}', options: { resolveReferences: true, only: ["github"] } }]);
  });

  it("flags what a URL server is sent at each start, and Colmena's own variables before saving", async () => {
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-add"));
    fireEvent.click(screen.getByTestId("mcp-kind-http"));
    fireEvent.change(screen.getByLabelText("URL"), { target: { value: "https://x.example/mcp" } });
    expect(screen.queryByTestId("mcp-sent-to")).toBeNull();
    fireEvent.click(screen.getByTestId("mcp-headers-add"));
    fireEvent.change(screen.getByTestId("mcp-headers-name-0"), { target: { value: "Authorization" } });
    fireEvent.change(screen.getByTestId("mcp-headers-value-0"), { target: { value: "Bearer ${API_KEY}" } });
    expect(screen.getByTestId("mcp-sent-to")).toHaveTextContent("Sent to https://x.example at each start: ${API_KEY}.");
    expect(screen.queryByTestId("mcp-colmena-reference")).toBeNull();

    fireEvent.change(screen.getByTestId("mcp-headers-value-0"), { target: { value: "Bearer ${COLMENA_TOKEN}" } });
    expect(screen.getByTestId("mcp-colmena-reference")).toHaveTextContent("${COLMENA_TOKEN}: Colmena's own variables are never given to a server");
    expect(screen.queryByTestId("mcp-sent-to")).toBeNull();
  });

  it("deleting hides the server at once, behind Undo", async () => {
    backend.servers = [server("everything")];
    renderPanel();
    fireEvent.click(await screen.findByTestId("mcp-delete-everything"));
    expect(screen.queryByTestId("mcp-server-everything")).toBeNull();
    expect(screen.getByTestId("undo-toast")).toHaveTextContent("Deleted «everything»");
    fireEvent.click(within(screen.getByTestId("undo-toast")).getByRole("button", { name: "Undo" }));
    expect(await screen.findByTestId("mcp-server-everything")).toBeInTheDocument();
  });
});
