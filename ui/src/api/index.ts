// The UI's one door to the backend. Only this folder imports the generated
// bindings; features import typed functions and types from here.

import {
  commands,
  events,
  type AgentRef,
  type Change,
  type ModelFilter_Deserialize,
  type Model_Serialize,
  type NewModel_Deserialize,
  type NewProvider_Deserialize,
  type ProviderKind,
  type ProviderKindInfo,
  type ProviderUpdate_Deserialize,
  type Provider_Serialize,
  type SecretBackend,
  type SecretBackendStatus_Serialize,
  type WorkspaceInfo_Serialize,
} from "../bindings";
import { toApiError } from "./errors";

export { ApiError, toApiError, type FieldProblem, type ErrorCode } from "./errors";

export type Provider = Provider_Serialize;
export type NewProvider = NewProvider_Deserialize;
export type ProviderUpdate = ProviderUpdate_Deserialize;
export type Model = Model_Serialize;
export type NewModel = NewModel_Deserialize;
export type ModelFilter = ModelFilter_Deserialize;
export type WorkspaceInfo = WorkspaceInfo_Serialize;
export type SecretBackendStatus = SecretBackendStatus_Serialize;
export type { AgentRef, Change, ProviderKind, ProviderKindInfo, SecretBackend };

async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw toApiError(error);
  }
}

export const api = {
  workspaceInfo: () => call(commands.workspaceInfo()),
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
  renameModel: (id: string, newName: string) => call(commands.renameModel(id, newName)),
  deleteModel: (id: string) => call(commands.deleteModel(id)),
  agentsUsingModel: (id: string) => call(commands.agentsUsingModel(id)),
};

/** Calls `onChange` for every change the backend commits; returns the unsubscribe. */
export async function onDataChanged(onChange: (change: Change) => void): Promise<() => void> {
  return events.dataChanged.listen((event) => onChange(event.payload.change));
}
