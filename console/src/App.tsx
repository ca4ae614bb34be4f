import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect } from 'react';
import { Link, Redirect, Route, Switch, useLocation, useParams } from 'wouter';
import { PlaybooksError, clientFor } from './api.ts';
import { session, useSession } from './session.ts';
import { ErrorNote, Loading, PageTitle } from './ui.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Workspaces } from './pages/Workspaces.tsx';
import { Playbooks } from './pages/Playbooks.tsx';
import { PlaybookDetail } from './pages/PlaybookDetail.tsx';
import { Nodes } from './pages/Nodes.tsx';
import { Find } from './pages/Find.tsx';
import { Feedback } from './pages/Feedback.tsx';
import { Agents } from './pages/Agents.tsx';
import { Authorize } from './pages/Authorize.tsx';

// The heavy pages (WebGL graph, editor, diff, chart) load on demand.
const GraphPage = lazy(() => import('./pages/Graph.tsx'));
const NodeEditor = lazy(() => import('./pages/NodeEditor.tsx'));
const DiffPage = lazy(() => import('./pages/Diff.tsx'));
const PlaybookVersionPage = lazy(() => import('./pages/PlaybookVersion.tsx'));
const PlaybookVersionEditor = lazy(() => import('./pages/PlaybookVersionEditor.tsx'));
const UsagePage = lazy(() => import('./pages/Usage.tsx'));
const CypherPage = lazy(() => import('./pages/Cypher.tsx'));

const sections = [
  ['playbooks', 'Playbooks'],
  ['nodes', 'Context nodes'],
  ['find', 'Find'],
  ['graph', 'Graph'],
  ['feedback', 'Feedback'],
  ['agents', 'Agents and keys'],
  ['usage', 'Usage'],
] as const;

function WorkspaceNav() {
  // Inside the workspace's nested router: paths are relative to /w/:ws.
  const [location] = useLocation();
  return (
    <nav aria-label="Workspace" className="sections">
      <ul>
        {sections.map(([path, label]) => {
          const href = `/${path}`;
          const current = location === href || location.startsWith(`${href}/`);
          return (
            <li key={path}>
              <Link href={href} aria-current={current ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/**
 * An id no workspace of the key's user has (a mistyped address, a workspace left or never joined): one page that
 * says so, instead of a section's filters above a small error.
 */
function WorkspaceNotFound({ ws }: { ws: string }) {
  return (
    <section className="not-found" data-testid="workspace-not-found">
      <PageTitle text="Workspace not found" />
      <p>
        No workspace with the id <code>{ws}</code> is open to you: the id may be mistyped, or this key’s user is not a member of it.
      </p>
      <p>
        {/* "~" leaves the workspace's nested router: the console's own root (main.tsx's base). */}
        <Link href="~/console/">Your workspaces</Link>
      </p>
    </section>
  );
}

/** The service's answer for an id it cannot be: 404 for a workspace the user has no part in, 400 for a malformed id. */
const isUnknownWorkspace = (err: unknown) => err instanceof PlaybooksError && (err.status === 404 || err.status === 400);

function WorkspaceRoutes() {
  const { ws } = useParams<{ ws: string }>();
  // The workspace is read first (cached for every page of it): an unknown one gets its own page.
  const workspace = useQuery({ queryKey: ['workspace', ws], queryFn: () => clientFor(ws).workspace.get(), staleTime: 60_000 });
  if (workspace.isPending) return <Loading what="Opening the workspace" />;
  if (workspace.error) return isUnknownWorkspace(workspace.error) ? <WorkspaceNotFound ws={ws} /> : <ErrorNote error={workspace.error} />;
  return (
    <>
      <WorkspaceNav />
      <Suspense fallback={<Loading />}>
        <Switch>
          <Route path="/playbooks" component={Playbooks} />
          <Route path="/playbooks/:pb/diff" component={DiffPage} />
          <Route path="/playbooks/:pb/versions/new" component={PlaybookVersionEditor} />
          <Route path="/playbooks/:pb/versions/:v" component={PlaybookVersionPage} />
          <Route path="/playbooks/:pb" component={PlaybookDetail} />
          <Route path="/nodes" component={Nodes} />
          <Route path="/nodes/new" component={NodeEditor} />
          <Route path="/nodes/:id" component={NodeEditor} />
          <Route path="/find" component={Find} />
          <Route path="/graph" component={GraphPage} />
          <Route path="/feedback" component={Feedback} />
          <Route path="/agents" component={Agents} />
          <Route path="/usage" component={UsagePage} />
          <Route>
            <Redirect to="/playbooks" />
          </Route>
        </Switch>
      </Suspense>
    </>
  );
}

export function App() {
  const { key } = useSession();
  const queryClient = useQueryClient();
  // Nothing read with one key is shown to the next.
  useEffect(() => {
    if (!key) queryClient.clear();
  }, [key, queryClient]);
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <Link href="/" className="brand">
          Playbooks<span className="brand-rest"> console</span>
        </Link>
        <Link href="/cypher">Cypher</Link>
        {key && (
          <>
            <Link href="/">Workspaces</Link>
            <button type="button" onClick={() => session.signOut('You are signed out.')}>
              Sign out
            </button>
          </>
        )}
      </header>
      <main id="main">
        <Switch>
          {/* The consent page signs a person in itself and stays where it is: the flow returns to it. */}
          <Route path="/authorize/:uid" component={Authorize} />
          {/* The analysts' page takes the operator's analyst token, not a user key (pages/Cypher.tsx). */}
          <Route path="/cypher"><Suspense fallback={<Loading />}><CypherPage /></Suspense></Route>
          <Route>
            {!key ? (
              <SignIn />
            ) : (
              <Switch>
                <Route path="/" component={Workspaces} />
                <Route path="/w/:ws" nest component={WorkspaceRoutes} />
                <Route>
                  <Redirect to="/" />
                </Route>
              </Switch>
            )}
          </Route>
        </Switch>
      </main>
    </>
  );
}
