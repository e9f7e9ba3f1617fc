/** The interactive API reference at /reference/: Swagger UI (served from this Worker's assets) over /openapi.json. */
type SwaggerUiBundle = ((options: Record<string, unknown>) => unknown) & { presets: { apis: unknown } };
const globals = globalThis as unknown as { SwaggerUIBundle?: SwaggerUiBundle; SwaggerUIStandalonePreset?: unknown };

if (globals.SwaggerUIBundle) {
  globals.SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger",
    deepLinking: true,
    presets: [globals.SwaggerUIBundle.presets.apis, globals.SwaggerUIStandalonePreset],
    layout: "BaseLayout",
    tryItOutEnabled: true,
    persistAuthorization: true,
  });
} else {
  document.getElementById("swagger")!.textContent = "Swagger UI did not load: run `npm run build` (it copies swagger-ui-dist into web/dist/reference).";
}
