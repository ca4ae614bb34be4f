import { useQuery } from '@tanstack/react-query';
import { clientFor } from './api.ts';

/**
 * Names the workspace's principals (users and agents, as ids like usr_… and ag_… appear in answers): an agent of
 * the workspace by its name, a member by name or email. One who is gone (a member who left, an agent of another
 * time) is named by kind, never by a bare id. Until the lists arrive a principal is an ellipsis, so that nobody
 * is first called "a user" and then renamed.
 */
export function usePrincipalNames(ws: string): (id: string, kind?: 'user' | 'agent') => string {
  const agents = useQuery({ queryKey: ['agents', ws], queryFn: () => clientFor(ws).agents.list(), staleTime: 60_000 });
  const members = useQuery({ queryKey: ['members', ws], queryFn: () => clientFor(ws).members.list(), staleTime: 60_000 });
  return (id, kind = id.startsWith('ag_') ? 'agent' : 'user') => {
    if ((kind === 'agent' ? agents : members).isPending) return '…';
    if (kind === 'agent') {
      const agent = agents.data?.find((a) => a.id === id);
      return agent ? `the agent ${agent.name}` : 'an agent';
    }
    const member = members.data?.find((m) => m.userId === id);
    return member ? member.name ?? member.email : 'a user';
  };
}
