import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { Router } from 'wouter';
import { PlaybooksError } from './api.ts';
import { App } from './App.tsx';
import './styles.css';

const queryClient = new QueryClient({
  queryCache: new QueryCache(),
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      refetchOnWindowFocus: false,
      // A problem the service answered (4xx) will not change by asking again.
      retry: (count, err) => count < 1 && !(err instanceof PlaybooksError && err.status >= 400 && err.status < 500),
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <Router base="/console">
        <App />
      </Router>
    </QueryClientProvider>
  </StrictMode>,
);
