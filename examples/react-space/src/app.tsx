/**
 * The example: sign in as a person (public key and JWT), pick one of your
 * spaces, and see it live. The provider is made from the credentials; every
 * hook below it shares its client and its connections.
 */
import type { SwitchboardOptions } from "@switchboard/client";
import { SwitchboardProvider, useMe, useToolHandler } from "@switchboard/react";
import { useMemo, useState } from "react";
import { type Credentials, forgetCredentials, readCredentials, saveCredentials, wantedSpace } from "./credentials";
import { SignInForm } from "./sign-in-form";
import { SpaceView } from "./space-view";

export function App() {
  const [credentials, setCredentials] = useState(readCredentials);
  // One options object per sign-in: a new object would make a new client.
  const options = useMemo<SwitchboardOptions | undefined>(
    () => credentials && { baseUrl: location.origin, publicKey: credentials.publicKey, token: credentials.token },
    [credentials],
  );
  const signIn = (signedIn: Credentials) => {
    saveCredentials(signedIn);
    setCredentials(signedIn);
  };
  const signOut = () => {
    forgetCredentials();
    setCredentials(undefined);
  };
  if (!options) return <SignInForm onSignIn={signIn} />;
  return (
    <SwitchboardProvider options={options}>
      <SignedIn onSignOut={signOut} />
    </SwitchboardProvider>
  );
}

function SignedIn({ onSignOut }: { onSignOut: () => void }) {
  const { me, error } = useMe();
  const [chosen, setChosen] = useState(wantedSpace);
  // The browser answers `browser_details` cards meant for this person by itself, in whichever space they come.
  useToolHandler("browser_details", () => ({
    language: navigator.language,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    screen: `${screen.width}×${screen.height}`,
  }));
  if (error) {
    return (
      <div className="sign-in">
        <p role="alert">Could not sign in: {error.message}</p>
        <button type="button" onClick={onSignOut}>
          Sign in again
        </button>
      </div>
    );
  }
  if (!me) return <p className="loading">Signing in…</p>;
  const spaceId = me.spaces.some((space) => space.id === chosen) ? chosen : me.spaces[0]?.id;
  return (
    <div className="app">
      <header className="top">
        <span>
          Signed in as <strong id="me">{me.entity.name}</strong>
        </span>
        <nav aria-label="Your spaces">
          {me.spaces.map((space) => (
            <button key={space.id} type="button" className="space-link" aria-current={space.id === spaceId ? "page" : undefined} onClick={() => setChosen(space.id)}>
              {space.name}
            </button>
          ))}
        </nav>
        <button type="button" className="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {/* Keyed by space: another space mounts a fresh view, and coming back resumes where this one was. */}
      {spaceId ? <SpaceView key={spaceId} spaceId={spaceId} /> : <p className="loading">You are in no space yet.</p>}
    </div>
  );
}
