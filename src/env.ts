/**
 * The Worker's bindings: the generated `Env` (wrangler types) plus the optional
 * secrets and bindings a deployment may add.
 */
export type AppEnv = Env & {
  OPENAI_API_KEY?: string;
  ANTHROPIC_API_KEY?: string;
  /** `"false"` refuses loopback, private and link-local hosts in every URL the gateway calls (see the URL policy). */
  ALLOW_PRIVATE_URLS?: string;
  /** OpenTelemetry traces (docs/observability.md): the OTLP/HTTP base; unset, tracing is off. */
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  /** A secret: headers for the OTLP endpoint, `key=value,key2=value2`, values URL-decoded. */
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  /** `http/protobuf` (the default) or `http/json`. */
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;
  /** The Workers AI binding, when `[ai]` is configured in wrangler.toml. */
  AI?: Ai;
  /** Any other secret a config names through `model.apiKeyEnv` or `${env.NAME}`. */
  [name: string]: unknown;
};
