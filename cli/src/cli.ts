/** The `switchboard` executable's entry: wires the CLI to the process. */
import { runCli } from "./main";

const controller = new AbortController();
process.once("SIGINT", () => controller.abort());
process.once("SIGTERM", () => controller.abort());

const code = await runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  env: process.env,
  signal: controller.signal,
  colors: process.stdout.isTTY === true && !process.env.NO_COLOR,
});
process.exitCode = code;
