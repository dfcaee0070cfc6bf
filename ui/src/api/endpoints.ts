// HTTP endpoints declared as tools (Catalog → Endpoints, SPEC H27–H29): one
// wrapper per command. Secret header values go in and never come out: reads
// answer `secretHeaderNames`, previews and tests mask them.

import {
  commands,
  type EndpointInput_Deserialize,
  type EndpointPair,
  type EndpointRequest_Serialize,
  type EndpointTestResult_Serialize,
  type Endpoint_Serialize,
  type HttpMethod,
  type SecretHeaderInput_Deserialize,
  type ShownHeader,
  type Value,
} from "../bindings";
import { toApiError } from "./errors";

export type Endpoint = Endpoint_Serialize;
export type EndpointInput = EndpointInput_Deserialize;
export type EndpointRequest = EndpointRequest_Serialize;
export type EndpointTestResult = EndpointTestResult_Serialize;
export type SecretHeaderInput = SecretHeaderInput_Deserialize;
export type JsonValue = Value;
export type { EndpointPair, HttpMethod, ShownHeader };

async function call<T>(promise: Promise<T>): Promise<T> {
  try {
    return await promise;
  } catch (error) {
    throw toApiError(error);
  }
}

export const endpointsApi = {
  list: () => call(commands.listEndpoints()),
  get: (id: string) => call(commands.getEndpoint(id)),
  create: (input: EndpointInput) => call(commands.createEndpoint(input)),
  update: (id: string, input: EndpointInput) => call(commands.updateEndpoint(id, input)),
  setEnabled: (id: string, enabled: boolean) => call(commands.setEndpointEnabled(id, enabled)),
  remove: (id: string) => call(commands.deleteEndpoint(id)),
  test: (id: string, params: JsonValue) => call(commands.testEndpoint(id, params)),
  preview: (input: EndpointInput, params: JsonValue) => call(commands.previewEndpoint(input, params)),
};
