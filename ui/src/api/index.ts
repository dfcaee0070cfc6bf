// The UI's one door to the backend. Only this folder imports the generated
// bindings; features import typed functions and types from here.

import {
  commands,
  events,
  type ActivationPlan,
  type ActivityEntry_Serialize,
  type ActivityFilter_Deserialize,
  type ActivityFigures,
  type ActivityKind,
  type ActivityPage_Serialize,
  type ActivityStatus,
  type Starter_Serialize,
  type AgentUpdate_Deserialize,
  type Agent_Serialize,
  type CatalogPersona,
  type CatalogSearch_Deserialize,
  type DiskSkill_Serialize,
  type DocKind,
  type EthicsDraft,
  type EthicsRule,
  type Memory,
  type MemoryHit,
  type NewAgent_Deserialize,
  type PatternExpansion,
  type SearchHit,
  type SeedPlan,
  type SetupStatus,
  type SkillDraft_Deserialize,
  type SkillFolder,
  type SkillOrigin,
  type Skill_Serialize,
  type SnippetPart,
  type Tool,
  type ToolFilter_Deserialize,
  type ToolMetadata_Deserialize,
  type AgentRef,
  type Change,
  type ModelFilter_Deserialize,
  type Model_Serialize,
  type NewModel_Deserialize,
  type NewProvider_Deserialize,
  type ProviderKind,
  type DownloadProgress_Deserialize,
  type DownloadProgress_Serialize,
  type LibraryModel,
  type LocalModel,
  type ProviderKindInfo,
  type ProviderUpdate_Deserialize,
  type Provider_Serialize,
  type SecretBackend,
  type SecretBackendStatus_Serialize,
  type WorkspaceInfo_Serialize,
  type BackupFile_Serialize,
  type BackupReport,
  type BackupsOverview_Serialize,
  type AppError_Serialize,
  type ChatMessage_Serialize,
  type ConversationHit_Serialize,
  type MessageTool as MessageToolType,
  type Conversation_Serialize,
  type ListOptions_Deserialize,
  type MemberInput_Deserialize,
  type MemberRole,
  type MessageRole,
  type NewSwarm_Deserialize,
  type Notice_Serialize,
  type Resumable_Serialize,
  type RunDetail_Serialize,
  type RunEvent_Serialize,
  type RunEvent_Deserialize,
  type RunFilter_Deserialize,
  type RunKind,
  type RunStatus,
  type RunStep_Serialize,
  type Run_Serialize,
  type Strategy,
  type Swarm,
  type SwarmMember,
  type SwarmSaved,
  type SwarmUpdate_Deserialize,
  type Usage_Serialize,
  type Artifact_Serialize,
  type MessageImage_Serialize,
  type AuthorKind,
  type AuthorUpdate_Deserialize,
  type AuthorWithToken_Serialize,
  type Author_Serialize,
  type WakeRecord_Serialize,
  type InboxQuery_Deserialize,
  type Message_Serialize,
  type NewAuthor_Deserialize,
  type Priority,
  type SendMessage_Deserialize,
  type SentQuery_Deserialize,
  type ServerStatus_Serialize,
  type AiClient,
  type ClientConfig,
  type ConnectRequest_Deserialize,
  type McpTransport,
  type Activity_Serialize,
  type Client as ActivityClient,
  type CanvasDetail_Serialize,
  type CanvasEvent_Deserialize,
  type CanvasEvent_Serialize,
  type CanvasItem_Serialize,
  type Canvas_Serialize,
  type ExportRequest_Deserialize,
  type Exported_Serialize,
  type ImagePreview_Serialize,
  type GenerateAllOutcome_Serialize,
  type NewItem_Deserialize,
  type NewSource_Deserialize,
  type NewVariant_Deserialize,
  type PresetDraft_Deserialize,
  type Round_Serialize,
  type SourceItem_Serialize,
  type Source_Serialize,
  type UserPreset,
  type VariantStatus,
  type VariantUpdate_Deserialize,
  type Variant_Serialize,
  type SourceKind,
  type Approval,
  type ExportToFile,
  type UiPrefs,
  type ApprovalStatus,
  type Decision,
  type Permissions,
  type Risk,
  type Rule,
} from "../bindings";
import type {
  ImportEntry_Serialize,
  ImportOptions_Deserialize,
  ImportOutcome_Serialize,
  ImportPreview_Serialize,
  ImportStatus,
  McpPreset_Serialize,
  McpServerInput_Deserialize,
  McpServerTransport_Serialize,
  McpServer_Serialize,
  McpState,
  McpTestResult_Serialize,
  McpToolInfo,
  McpVar,
  McpVarInput_Deserialize,
} from "../bindings";
import type {
  CheckEvent,
  ConnectModel_Deserialize,
  Connected_Serialize,
  ConnectionCheck,
  LocalServerKind,
  LocalServer_Serialize,
} from "../bindings";
import type { OutboxEntry_Serialize, OutboxState, TeamBusConnect_Deserialize, TeamBusLink_Serialize } from "../bindings";
import { Channel } from "@tauri-apps/api/core";
import { toApiError } from "./errors";

import type {
  WebSearchBackend,
  WebSearchBackendInfo_Serialize,
  WebSearchConfig_Serialize,
  WebSearchResult,
  WebSearchSettings_Deserialize,
  WebSearchTest,
} from "../bindings";
export { ApiError, ERROR_CODES, toApiError, type FieldProblem, type ErrorCode } from "./errors";

export type Provider = Provider_Serialize;
/** An MCP server Colmena uses as a client (not `McpTransport`: that is how
 * a client reaches Colmena). */
export type McpServer = McpServer_Serialize;
export type McpServerInput = McpServerInput_Deserialize;
export type McpServerTransport = McpServerTransport_Serialize;
export type McpVarInput = McpVarInput_Deserialize;
export type McpTestResult = McpTestResult_Serialize;
export type McpPreset = McpPreset_Serialize;
export type McpImportOptions = ImportOptions_Deserialize;
export type McpImportPreview = ImportPreview_Serialize;
export type McpImportEntry = ImportEntry_Serialize;
export type McpImportOutcome = ImportOutcome_Serialize;
export type McpImportStatus = ImportStatus;
export type { McpState, McpToolInfo, McpVar };
export type LocalServer = LocalServer_Serialize;
export type DownloadProgress = DownloadProgress_Serialize;
export type { LibraryModel, LocalModel };
export type ConnectModel = ConnectModel_Deserialize;
export type Connected = Connected_Serialize;
export type { ConnectionCheck, LocalServerKind };
export type NewProvider = NewProvider_Deserialize;
export type ProviderUpdate = ProviderUpdate_Deserialize;
export type Model = Model_Serialize;
export type NewModel = NewModel_Deserialize;
export type ModelFilter = ModelFilter_Deserialize;
export type WorkspaceInfo = WorkspaceInfo_Serialize;
export type BackupsOverview = BackupsOverview_Serialize;
/** How the last restore asked for in Settings ended (until dismissed). */
export type RestoreOutcome = NonNullable<BackupsOverview["lastRestore"]>;
export type BackupFile = BackupFile_Serialize;
export type { BackupReport };
export type SecretBackendStatus = SecretBackendStatus_Serialize;
export type Agent = Agent_Serialize;
export type NewAgent = NewAgent_Deserialize;
export type AgentUpdate = AgentUpdate_Deserialize;
export type Skill = Skill_Serialize;
export type SkillDraft = SkillDraft_Deserialize;
export type DiskSkill = DiskSkill_Serialize;
export type ToolFilter = ToolFilter_Deserialize;
export type ToolMetadata = ToolMetadata_Deserialize;
export type CatalogSearch = CatalogSearch_Deserialize;
export type AppError = AppError_Serialize;
export type NewSwarm = NewSwarm_Deserialize;
export type SwarmUpdate = SwarmUpdate_Deserialize;
export type MemberInput = MemberInput_Deserialize;
export type Run = Run_Serialize;
export type ActivityEntry = ActivityEntry_Serialize;
export type ActivityFilter = ActivityFilter_Deserialize;
export type ActivityPage = ActivityPage_Serialize;
export type Starter = Starter_Serialize;
export type { ActivityFigures, ActivityKind, ActivityStatus };
export type RunDetail = RunDetail_Serialize;
export type RunStep = RunStep_Serialize;
export type RunEvent = RunEvent_Serialize;
export type RunFilter = RunFilter_Deserialize;
export type Conversation = Conversation_Serialize;
export type ChatMessage = ChatMessage_Serialize;
export type MessageTool = MessageToolType;
export type ConversationHit = ConversationHit_Serialize;
export type ConversationListOptions = ListOptions_Deserialize;
export type Resumable = Resumable_Serialize;
export type Notice = Notice_Serialize;
export type Author = Author_Serialize;
export type AuthorWithToken = AuthorWithToken_Serialize;
export type NewAuthor = NewAuthor_Deserialize;
export type WakeRecord = WakeRecord_Serialize;
export type AuthorUpdate = AuthorUpdate_Deserialize;
export type BusMessage = Message_Serialize;
export type SendMessage = SendMessage_Deserialize;
export type InboxQuery = InboxQuery_Deserialize;
export type SentQuery = SentQuery_Deserialize;
export type ServerStatus = ServerStatus_Serialize;
export type TeamBusLink = TeamBusLink_Serialize;
export type TeamBusConnect = TeamBusConnect_Deserialize;
export type OutboxEntry = OutboxEntry_Serialize;
export type { OutboxState };
export type ConnectRequest = ConnectRequest_Deserialize;
export type { AiClient, ClientConfig, McpTransport };
export type { AuthorKind, Priority };
export type Canvas = Canvas_Serialize;
export type CanvasDetail = CanvasDetail_Serialize;
export type CanvasItem = CanvasItem_Serialize;
export type CanvasEvent = CanvasEvent_Serialize;
export type NewItem = NewItem_Deserialize;
export type Variant = Variant_Serialize;
export type NewVariant = NewVariant_Deserialize;
export type VariantUpdate = VariantUpdate_Deserialize;
export type ExportRequest = ExportRequest_Deserialize;
export type Exported = Exported_Serialize;
export type ImagePreview = ImagePreview_Serialize;
export type GenerateAllOutcome = GenerateAllOutcome_Serialize;
export type PresetDraft = PresetDraft_Deserialize;
export type Source = Source_Serialize;
export type SourceItem = SourceItem_Serialize;
export type NewSource = NewSource_Deserialize;
export type CanvasActivity = Activity_Serialize;
/** Who asked for a canvas operation (`ui`, `cli`, `claude-code`, …). */
export type { ActivityClient };
export type Round = Round_Serialize;
export type { UserPreset, VariantStatus, SourceKind };
/** Token counts; `null` is "not reported by the provider", never 0. */
export type Usage = Usage_Serialize;
/** A stored image (an artifact of the images module). */
export type Artifact = Artifact_Serialize;
export type MessageImage = MessageImage_Serialize;
export type { Approval, ApprovalStatus, Decision, Permissions, Risk, Rule };
export type {
  MemberRole,
  MessageRole,
  RunKind,
  RunStatus,
  Strategy,
  Swarm,
  SwarmMember,
  SwarmSaved,
  ActivationPlan,
  AgentRef,
  CatalogPersona,
  Change,
  DocKind,
  EthicsDraft,
  EthicsRule,
  Memory,
  MemoryHit,
  PatternExpansion,
  ProviderKind,
  ProviderKindInfo,
  SearchHit,
  SecretBackend,
  SeedPlan,
  SetupStatus,
  SkillFolder,
  SkillOrigin,
  SnippetPart,
  Tool,
};

async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw toApiError(error);
  }
}

export const api = {
  workspaceInfo: () => call(commands.workspaceInfo()),
  listBackups: () => call(commands.listBackups()),
  makeBackup: (keyPassphrase: string | null) => call(commands.makeBackup(keyPassphrase)),
  keepBackupKey: (keyPassphrase: string | null) => call(commands.keepBackupKey(keyPassphrase)),
  restoreBackup: (path: string, keyPassphrase: string | null) => call(commands.restoreBackup(path, keyPassphrase)),
  dismissRestoreOutcome: () => call(commands.dismissRestoreOutcome()),
  providerKinds: () => call(commands.providerKinds()),
  listProviders: () => call(commands.listProviders()),
  createProvider: (input: NewProvider) => call(commands.createProvider(input)),
  updateProvider: (id: string, input: ProviderUpdate) => call(commands.updateProvider(id, input)),
  setProviderEnabled: (id: string, enabled: boolean) =>
    call(commands.setProviderEnabled(id, enabled)),
  deleteProvider: (id: string) => call(commands.deleteProvider(id)),
  listModels: (filter: ModelFilter) => call(commands.listModels(filter)),
  createModel: (input: NewModel) => call(commands.createModel(input)),
  setModelEnabled: (id: string, enabled: boolean) => call(commands.setModelEnabled(id, enabled)),
  setModelLabel: (id: string, label: string | null) => call(commands.setModelLabel(id, label)),
  /** Whether images are sent to the model: true, false, or null for the default of its name. */
  setModelImages: (id: string, setting: boolean | null) => call(commands.setModelImages(id, setting)),
  renameModel: (id: string, newName: string) => call(commands.renameModel(id, newName)),
  deleteModel: (id: string) => call(commands.deleteModel(id)),
  agentsUsingModel: (id: string) => call(commands.agentsUsingModel(id)),

  listAgents: () => call(commands.listAgents()),
  createAgent: (input: NewAgent) => call(commands.createAgent(input)),
  updateAgent: (id: string, input: AgentUpdate) => call(commands.updateAgent(id, input)),
  setAgentEnabled: (id: string, enabled: boolean) => call(commands.setAgentEnabled(id, enabled)),
  deleteAgent: (id: string) => call(commands.deleteAgent(id)),
  agentSystemPrompt: (id: string) => call(commands.agentSystemPrompt(id)),

  listTools: (filter: ToolFilter) => call(commands.listTools(filter)),
  setToolActive: (id: string, active: boolean) => call(commands.setToolActive(id, active)),
  updateToolMetadata: (id: string, input: ToolMetadata) => call(commands.updateToolMetadata(id, input)),
  expandToolPatterns: (patterns: string[]) => call(commands.expandToolPatterns(patterns)),

  listSkills: () => call(commands.listSkills({})),
  createSkill: (input: SkillDraft) => call(commands.createSkill(input)),
  updateSkill: (id: string, input: SkillDraft) => call(commands.updateSkill(id, input)),
  setSkillActive: (id: string, active: boolean) => call(commands.setSkillActive(id, active)),
  deleteSkill: (id: string) => call(commands.deleteSkill(id)),
  importSkill: (path: string) => call(commands.importSkill(path)),
  listDiskSkills: () => call(commands.listDiskSkills()),
  listSkillFolders: () => call(commands.listSkillFolders()),

  searchCatalog: (input: CatalogSearch) => call(commands.searchCatalog(input)),

  setupStatus: () => call(commands.setupStatus()),
  planSeed: (ids: string[]) => call(commands.planSeed(ids)),
  applySeed: (ids: string[]) => call(commands.applySeed(ids)),
  planActivation: (ids: string[]) => call(commands.planActivation(ids)),
  enableCatalogAgent: (id: string) => call(commands.enableCatalogAgent(id)),
  disableCatalogAgent: (id: string) => call(commands.disableCatalogAgent(id)),

  listEthics: () => call(commands.listEthics()),
  createEthics: (input: EthicsDraft) => call(commands.createEthics(input)),
  updateEthics: (id: string, input: EthicsDraft) => call(commands.updateEthics(id, input)),
  setEthicsActive: (id: string, active: boolean) => call(commands.setEthicsActive(id, active)),
  deleteEthics: (id: string) => call(commands.deleteEthics(id)),

  /** `role`: that role's own memories (issue 15), else the owner's. */
  listMemories: (limit?: number, offset?: number, role?: string | null) =>
    call(commands.listMemories(limit ?? null, offset ?? null, role ?? null)),
  writeMemory: (title: string, content: string) => call(commands.writeMemory(title, content)),
  deleteMemory: (title: string, role?: string | null) => call(commands.deleteMemory(title, role ?? null)),
  searchMemories: (query: string, limit?: number, role?: string | null) =>
    call(commands.searchMemories(query, limit ?? null, role ?? null)),
};

/** A channel whose events go to `onEvent`, for commands that stream a run.
 * The generated bindings type a channel with the backend's input shape;
 * what arrives is what the backend sends (the `_Serialize` shape). */
function runChannel(onEvent: (event: RunEvent) => void): Channel<RunEvent_Deserialize> {
  const channel = new Channel<RunEvent_Deserialize>();
  channel.onmessage = (event) => onEvent(event as RunEvent);
  return channel;
}

type OnRunEvent = (event: RunEvent) => void;

export const runtimeApi = {
  defaultModel: () => call(commands.defaultModel()),
  setDefaultModel: (id: string | null) => call(commands.setDefaultModel(id)),

  listSwarms: () => call(commands.listSwarms()),
  getSwarm: (id: string) => call(commands.getSwarm(id)),
  createSwarm: (input: NewSwarm) => call(commands.createSwarm(input)),
  updateSwarm: (id: string, input: SwarmUpdate) => call(commands.updateSwarm(id, input)),
  setSwarmEnabled: (id: string, enabled: boolean) => call(commands.setSwarmEnabled(id, enabled)),
  deleteSwarm: (id: string) => call(commands.deleteSwarm(id)),
  swarmPendingActivation: (agents: string[]) => call(commands.swarmPendingActivation(agents)),
  runSwarm: (id: string, input: string, onEvent: OnRunEvent) =>
    call(commands.runSwarm(id, input, {}, runChannel(onEvent))),

  runAgent: (id: string, input: string, onEvent: OnRunEvent) =>
    call(commands.runAgent(id, input, {}, runChannel(onEvent))),
  listRuns: (filter: RunFilter) => call(commands.listRuns(filter)),
  /** A finished run's question and answer, as a new conversation. */
  continueRunInChat: (runId: string) => call(commands.continueRunInChat(runId)),
  getRun: (id: string) => call(commands.getRun(id)),
  resumableRuns: () => call(commands.resumableRuns()),
  resumeRun: (id: string, onEvent: OnRunEvent) => call(commands.resumeRun(id, runChannel(onEvent))),
  cancelRun: (id: string) => call(commands.cancelRun(id)),
  pendingApprovals: () => call(commands.pendingApprovals()),
  decideApproval: (id: string, decision: Decision) => call(commands.decideApproval(id, decision)),
  discardRun: (id: string) => call(commands.discardRun(id)),

  listConversations: (options: ConversationListOptions) => call(commands.listConversations(options)),
  createConversation: (agentId: string) => call(commands.createConversation(agentId)),
  conversationHistory: (id: string) => call(commands.conversationHistory(id)),
  renameConversation: (id: string, title: string) => call(commands.renameConversation(id, title)),
  closeConversation: (id: string) => call(commands.closeConversation(id)),
  reopenConversation: (id: string) => call(commands.reopenConversation(id)),
  deleteConversation: (id: string) => call(commands.deleteConversation(id)),
  /** A new conversation with the messages before `messageId` (edit, retry); the original kept. */
  forkConversation: (id: string, messageId: number) => call(commands.forkConversation(id, messageId)),
  /** The model the conversation answers with; null: its agent's own. */
  setConversationModel: (id: string, modelId: string | null) => call(commands.setConversationModel(id, modelId)),
  searchConversations: (query: string) => call(commands.searchConversations(query)),
  conversationResume: (id: string) => call(commands.conversationResume(id)),
  sendChatMessage: (conversationId: string, text: string, images: string[], onEvent: OnRunEvent) =>
    call(commands.sendChatMessage(conversationId, text, images, runChannel(onEvent))),
  /** An image file dropped on the composer, stored to attach. */
  uploadChatImage: (name: string, dataBase64: string) => call(commands.uploadChatImage(name, dataBase64)),
  /** The native dialog for image files; the chosen ones are stored (none: cancelled). */
  pickChatImages: (title: string) => call(commands.pickChatImages(title)),
  chatImagePreview: (artifactId: string) => call(commands.chatImagePreview(artifactId)),
};

/** The bus: authors, inboxes, the local server (SPEC B1–B6). */
export const inboxApi = {
  listAuthors: () => call(commands.listAuthors()),
  createAuthor: (input: NewAuthor) => call(commands.createAuthor(input)) as Promise<AuthorWithToken>,
  updateAuthor: (id: string, input: AuthorUpdate) => call(commands.updateAuthor(id, input)),
  rotateAuthorToken: (id: string) => call(commands.rotateAuthorToken(id)) as Promise<AuthorWithToken>,
  /** What the person is called, here and on the bus. */
  setMyName: (name: string) => call(commands.setMyName(name)),
  removeAuthor: (id: string) => call(commands.removeAuthor(id)),
  wakeAuthor: (id: string) => call(commands.wakeAuthor(id)),
  listWakeHistory: (authorId: string, before?: number, limit?: number) =>
    call(commands.listWakeHistory(authorId, before ?? null, limit ?? null)),
  roleThreadSummary: (authorId: string) => call(commands.roleThreadSummary(authorId)),
  send: (to: string, message: SendMessage) => call(commands.sendBusMessage(to, message)),
  readInbox: (author: string, query: InboxQuery) => call(commands.readInbox(author, query)),
  markRead: (author: string, ids: string[]) => call(commands.markMessagesRead(author, ids)),
  markUnread: (author: string, ids: string[]) => call(commands.markMessagesUnread(author, ids)),
  readThread: (author: string, messageId: string) => call(commands.readBusThread(author, messageId)),
  search: (author: string, query: string, limit?: number) => call(commands.searchBusMessages(author, query, limit ?? null)),
  listSent: (author: string, query: SentQuery) => call(commands.listSent(author, query)),
  deleteMessage: (id: string) => call(commands.deleteBusMessage(id)),
  serverStatus: () => call(commands.serverStatus()),
  setServerPort: (port: number) => call(commands.setServerPort(port)),
  mcpClientConfig: (request: ConnectRequest) => call(commands.mcpClientConfig(request)),
};

/** This desktop on a team's bus (issue 17): its settings, its inbox there,
 * and the outbox its mail leaves through. */
export const teamBusApi = {
  status: () => call(commands.teamBusStatus()),
  connect: (input: TeamBusConnect) => call(commands.connectTeamBus(input)),
  disconnect: () => call(commands.disconnectTeamBus()),
  inbox: (query: InboxQuery) => call(commands.teamBusInbox(query)),
  /** Who is on the team bus, by name: the "To" picker. */
  authors: () => call(commands.teamBusAuthors()),
  send: (to: string, message: SendMessage) => call(commands.sendTeamMessage(to, message)),
  outbox: () => call(commands.teamOutbox()),
  discard: (seq: number) => call(commands.discardOutboxEntry(seq)),
};

/** A channel for a generation's events (see `runChannel`). */
function canvasChannel(onEvent: (event: CanvasEvent) => void): Channel<CanvasEvent_Deserialize> {
  const channel = new Channel<CanvasEvent_Deserialize>();
  channel.onmessage = (event) => onEvent(event as CanvasEvent);
  return channel;
}

/** The canvas (SPEC C1–C10), acting as the owner with client `ui`. */
/** The Activity home: the timeline of everything that ran. */
export const activityApi = {
  timeline: (filter: ActivityFilter) => call(commands.activityTimeline(filter)),
  markSeen: () => call(commands.markActivitySeen()),
};

export const canvasApi = {
  list: () => call(commands.listCanvases()),
  create: (name: string | null) => call(commands.createCanvas(name)),
  get: (id: string) => call(commands.getCanvas(id)),
  rename: (id: string, name: string | null) => call(commands.renameCanvas(id, name)),
  remove: (id: string) => call(commands.deleteCanvas(id)),
  addItem: (canvas: string, item: NewItem) => call(commands.addCanvasItem(canvas, item)),
  addImage: (canvas: string, name: string, dataBase64: string) => call(commands.addCanvasImage(canvas, name, dataBase64)),
  itemImage: (canvas: string, item: string) => call(commands.canvasItemImage(canvas, item)),
  removeItem: (canvas: string, item: string) => call(commands.removeCanvasItem(canvas, item)),
  clearSelection: (canvas: string) => call(commands.clearCanvasSelection(canvas)),
  addVariant: (canvas: string, input: NewVariant) => call(commands.addVariant(canvas, input)),
  updateVariant: (id: string, input: VariantUpdate) => call(commands.updateVariant(id, input)),
  removeVariant: (id: string) => call(commands.removeVariant(id)),
  selectRound: (id: string, index: number) => call(commands.selectRound(id, index)),
  rounds: (id: string) => call(commands.variantRounds(id)),
  writeRound: (id: string, text: string) => call(commands.writeRound(id, text)),
  generate: (id: string, onEvent: (event: CanvasEvent) => void) => call(commands.generateVariant(id, canvasChannel(onEvent))),
  generateAll: (canvas: string, onEvent: (event: CanvasEvent) => void) =>
    call(commands.generateAll(canvas, canvasChannel(onEvent))),
  cancel: (id: string) => call(commands.cancelGeneration(id)),
  exportVariant: (request: ExportRequest) => call(commands.exportVariant(request)),
  exportsLast7Days: () => call(commands.exportsLast7Days()),
  presets: () => call(commands.listPresets()),
  savePreset: (draft: PresetDraft) => call(commands.savePreset(draft)),
  deletePreset: (id: string) => call(commands.deletePreset(id)),
  sources: () => call(commands.listSources()),
  registerSource: (input: NewSource) => call(commands.registerSource(input)),
  refreshSource: (id: string) => call(commands.refreshSource(id)),
  sourceItems: (id: string) => call(commands.sourceItems(id)),
  removeSource: (id: string) => call(commands.removeSource(id)),
  activity: (canvas: string | null, limit: number | null) => call(commands.canvasActivity(canvas, limit)),
};

/** The first run's "connect a model" (issue 12): local servers, connect,
 * a streamed connection test and the sample canvas. */
export const onboardingApi = {
  detectLocalServers: () => call(commands.detectLocalServers()),
  connectModel: (input: ConnectModel) => call(commands.connectModel(input)),
  testConnection: (id: string, onDelta: (text: string) => void) => {
    const channel = new Channel<CheckEvent>();
    channel.onmessage = (event) => onDelta(event.text);
    return call(commands.testConnection(id, channel));
  },
  /** The first canvas: about `topic` (pasted text or a link), else the sample. */
  openSampleCanvas: (language: string, topic: string | null = null) => call(commands.openSampleCanvas(language, topic)),
};

/** Models that run on this computer (issue 35): the library, the files on
 * disk, downloads with progress, and the engine's loaded model. */
export const localModelsApi = {
  library: () => call(commands.modelLibrary()),
  list: () => call(commands.listLocalModels()),
  pull: (source: string, onProgress: (progress: DownloadProgress) => void) => {
    const channel = new Channel<DownloadProgress_Deserialize>();
    channel.onmessage = (p) => onProgress({ ...p, total: p.total ?? null, secondsLeft: p.secondsLeft ?? null });
    return call(commands.pullLocalModel(source, channel));
  },
  downloads: () => call(commands.localModelDownloads()),
  cancel: (name: string) => call(commands.cancelModelDownload(name)),
  /** Opens the native open dialog; the page never names the file. */
  addFile: (title: string) => call(commands.addLocalModelFile(title)),
  remove: (name: string) => call(commands.removeLocalModel(name)),
  load: (name: string) => call(commands.loadLocalModel(name)),
  unload: () => call(commands.unloadLocalModel()),
};

/** MCP servers Colmena uses as a client (Catalog → MCP servers), acting as
 * the person at the window. A configuration file to import is chosen in the
 * native dialog the backend opens: the page gets its text, never a path. */
export const mcpApi = {
  list: () => call(commands.listMcpServers()),
  get: (id: string) => call(commands.getMcpServer(id)),
  create: (input: McpServerInput) => call(commands.createMcpServer(input)),
  update: (id: string, input: McpServerInput) => call(commands.updateMcpServer(id, input)),
  setEnabled: (id: string, enabled: boolean) => call(commands.setMcpServerEnabled(id, enabled)),
  remove: (id: string) => call(commands.deleteMcpServer(id)),
  test: (id: string) => call(commands.testMcpServer(id)),
  presets: () => call(commands.mcpServerPresets()),
  previewImport: (text: string, options: McpImportOptions) => call(commands.previewMcpImport(text, options)),
  importServers: (text: string, options: McpImportOptions) => call(commands.importMcpServers(text, options)),
  pickConfigFile: (title: string) => call(commands.pickMcpConfigFile(title)),
};

/** Calls `onNotice` for every notice an agent sends to the person. */
export async function onUserNotice(onNotice: (notice: Notice) => void): Promise<() => void> {
  return events.userNotice.listen((event) => onNotice(event.payload.notice));
}

/**
 * What needs the desktop itself. Files and folders are chosen in native
 * dialogs opened by the backend, so the page never names a path; each call
 * resolves to null when the person cancels the dialog.
 */
export const desktopApi = {
  exportVariantToFile: (request: ExportToFile) => call(commands.exportVariantToFile(request)),
  /** A finished run's result, as markdown, where the person chooses. */
  exportRunToFile: (runId: string, title: string) => call(commands.exportRunToFile(runId, title)),
  /** A whole conversation, as markdown, where the person chooses. */
  exportConversationToFile: (id: string, title: string) => call(commands.exportConversationToFile(id, title)),
  importSkillFolder: (title: string) => call(commands.importSkillFolder(title)),
  /** Opens an http(s) link in the system browser; the window never leaves the app. */
  openLink: (url: string) => call(commands.openLink(url)),
  readUiPrefs: () => call(commands.readUiPrefs()),
  writeUiPrefs: (prefs: UiPrefs) => call(commands.writeUiPrefs(prefs)),
};

/** Calls `onChange` for every change the backend commits; returns the unsubscribe. */
export async function onDataChanged(onChange: (change: Change) => void): Promise<() => void> {
  return events.dataChanged.listen((event) => onChange(event.payload.change));
}

export type WebSearchConfig = WebSearchConfig_Serialize;
export type WebSearchSettings = WebSearchSettings_Deserialize;
export type WebSearchBackendInfo = WebSearchBackendInfo_Serialize;
export type { WebSearchBackend, WebSearchResult, WebSearchTest };

/** The search service `web_search` asks (Settings → Web search). A key goes
 * in with `set`; every answer carries only its masked form. */
export const webSearchApi = {
  backends: () => call(commands.webSearchBackends()),
  get: () => call(commands.getWebSearch()),
  set: (input: WebSearchSettings) => call(commands.setWebSearch(input)),
  clear: () => call(commands.clearWebSearch()),
  test: (query: string | null) => call(commands.testWebSearch(query)),
};

// The desktop shell (tray, start at login, links) has its own file.
export * from "./shell";

// Scheduled jobs live in their own file of this folder.
export * from "./cron";

// HTTP endpoints as tools live in their own file of this folder.
export * from "./endpoints";
