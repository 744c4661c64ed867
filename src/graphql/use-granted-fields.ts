import { type DocumentNode, type GraphQLSchema, TypeInfo, visit, visitWithTypeInfo } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { endpointNotGranted, type Grant } from '../endpoints/grant.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { schemaFor } from './schema.js';

/**
 * A signed token's operation is validated against the schema of what it may call, where an
 * endpoint outside its grant is no field at all. A document that fails there because it asks for
 * such an endpoint is refused as REST refuses the call: 403 FORBIDDEN naming the endpoint, rather
 * than "Cannot query field", which would read as a typo. Only failed validations are looked at
 * again (against the whole schema), so a valid operation costs nothing more, and an operation
 * with a key never comes here.
 */
export function useGrantedFields(snapshot: () => Snapshot): Plugin<{ grant?: Grant | undefined }> {
  return {
    onValidate({ context, params }) {
      const { grant } = context;
      if (!grant) return;
      return ({ result, setResult }) => {
        if (result.length === 0) return;
        const refused = endpointsOutside(grant, schemaFor(snapshot()), params.documentAST);
        if (refused.length > 0) setResult(refused.map(endpointNotGranted));
      };
    },
  };
}

/** The endpoints a document asks for that the grant does not name, in document order. */
function endpointsOutside(grant: Grant, schema: GraphQLSchema, document: DocumentNode): string[] {
  const refused = new Set<string>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field() {
        const endpoint = typeInfo.getFieldDef()?.extensions.querygateEndpoint;
        if (typeof endpoint === 'string' && !grant.allows(endpoint)) refused.add(endpoint);
      },
    }),
  );
  return [...refused];
}
