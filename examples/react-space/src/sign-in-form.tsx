/** The sign-in form: the gateway's public key and a person's JWT (`npx switchboard token ent_…` prints one). */
import { type FormEvent, useState } from "react";
import type { Credentials } from "./credentials";

export function SignInForm({ onSignIn }: { onSignIn: (credentials: Credentials) => void }) {
  const [publicKey, setPublicKey] = useState("");
  const [token, setToken] = useState("");
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (publicKey.trim() && token.trim()) onSignIn({ publicKey: publicKey.trim(), token: token.trim() });
  };
  return (
    <form className="sign-in" onSubmit={submit}>
      <h1>Sign in to a Switchboard space</h1>
      <label>
        Public key <input name="publicKey" value={publicKey} onChange={(event) => setPublicKey(event.target.value)} autoComplete="off" required />
      </label>
      <label>
        Token (a person's JWT) <input name="token" value={token} onChange={(event) => setToken(event.target.value)} autoComplete="off" required />
      </label>
      <button type="submit">Sign in</button>
      <p className="hint">
        <code>npx switchboard token ent_…</code> prints a token; <code>npm run dev</code>'s link carries both (use its <code>#publicKey=…&amp;token=…</code> here).
      </p>
    </form>
  );
}
