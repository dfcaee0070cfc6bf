import { queryOptions } from "@tanstack/react-query";

import { localModelsApi } from "../../api";

export const localModelKeys = {
  library: ["model-library"] as const,
  local: ["local-models"] as const,
};

export const libraryQuery = queryOptions({
  queryKey: localModelKeys.library,
  queryFn: localModelsApi.library,
  staleTime: Infinity,
});

export const localModelsQuery = queryOptions({
  queryKey: localModelKeys.local,
  queryFn: localModelsApi.list,
});
