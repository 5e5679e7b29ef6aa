/** The classification scheme (domains and business categories) and its admin page. */
export const classificationEn = {
  'classification.title': 'Classification',
  'classification.intro':
    'Domains and business categories sort the glossary. Editors tick them on a term; import files and the API name them by their key.',
  'classification.domain.heading': 'Domains',
  'classification.domain.hint': 'The subject area a term belongs to, such as Payments or Platform.',
  'classification.domain.none': 'No domains yet.',
  'classification.domain.add': 'Add a domain',
  'classification.category.heading': 'Business categories',
  'classification.category.hint':
    'The part of the business that uses a term, such as Retail banking or Back office.',
  'classification.category.none': 'No business categories yet.',
  'classification.category.add': 'Add a business category',
  'classification.name': 'Name',
  'classification.nameEn': 'English name',
  'classification.nameKo': 'Korean name',
  'classification.key': 'Key',
  'classification.keyHint':
    'Lowercase letters, digits, - and _, for example payments. Import files use it; it cannot be changed later.',
  'classification.keyFixed': 'The key cannot be changed: add a new entry and delete this one instead.',
  'classification.sort': 'Order',
  'classification.sortHint': 'Smaller numbers are listed first.',
  'classification.terms': 'Terms',
  'classification.showTerms': 'Show the terms',
  'classification.add': 'Add',
  'classification.edit': 'Edit',
  'classification.editOf': 'Edit “{name}”',
  'classification.delete': 'Delete',
  'classification.deleteOf': 'Delete “{name}”',
  'classification.keyTaken': 'This key is already used. Choose another key, or edit the existing entry.',
  'classification.keyRule':
    'Enter a key of up to 64 lowercase letters, digits, - and _, starting with a letter or digit, for example payments.',
  'classification.gone':
    'This entry no longer exists: someone may have deleted it. The list below is current.',
  'classification.confirmDelete':
    '“{name}” is used by {terms}. Deleting it removes it from them; each gets a new revision, so their history keeps it.',
  'classification.confirmDeleteButton': 'Delete it and remove it from {terms}',
  'classification.keepIt': 'Keep it',

  // the term editor and the import page, when the scheme is empty
  'classification.editorNone': 'None defined yet.',
  'classification.editorAdd': 'Add domains and business categories on the Classification page.',
  'classification.editorAsk': 'Ask an administrator to add them.',
  'classification.importHint':
    'Domains and business categories in a file are written by their key and must exist before the import.',
  'classification.importManage': 'Manage them on the Classification page.',
  'classification.importAsk': 'An administrator adds them.',

  'flash.domainCreated': 'Domain “{nameEn}” added.',
  'flash.categoryCreated': 'Business category “{nameEn}” added.',
  'flash.domainUpdated': 'Domain “{nameEn}” saved.',
  'flash.categoryUpdated': 'Business category “{nameEn}” saved.',
  'flash.domainDeleted': 'Domain “{nameEn}” deleted.',
  'flash.categoryDeleted': 'Business category “{nameEn}” deleted.',
  'flash.domainDeletedFromTerms':
    'Domain “{nameEn}” deleted. Terms that carried it, each with a new revision without it: {count}.',
  'flash.categoryDeletedFromTerms':
    'Business category “{nameEn}” deleted. Terms that carried it, each with a new revision without it: {count}.',
} as const

export const classificationKo: Record<keyof typeof classificationEn, string> = {
  'classification.title': '분류 체계',
  'classification.intro':
    '도메인과 업무 분류로 용어 사전을 나눕니다. 편집자는 용어에서 해당 항목을 고르고, 가져오기 파일과 API는 키로 가리킵니다.',
  'classification.domain.heading': '도메인',
  'classification.domain.hint': '용어가 속한 분야입니다. 예: 결제, 플랫폼.',
  'classification.domain.none': '아직 도메인이 없습니다.',
  'classification.domain.add': '도메인 추가',
  'classification.category.heading': '업무 분류',
  'classification.category.hint': '용어를 쓰는 업무 영역입니다. 예: 소매 금융, 백오피스.',
  'classification.category.none': '아직 업무 분류가 없습니다.',
  'classification.category.add': '업무 분류 추가',
  'classification.name': '이름',
  'classification.nameEn': '영어 이름',
  'classification.nameKo': '한국어 이름',
  'classification.key': '키',
  'classification.keyHint':
    '영문 소문자, 숫자, -, _ (예: payments). 가져오기 파일에서 이 키를 씁니다. 나중에 바꿀 수 없습니다.',
  'classification.keyFixed': '키는 바꿀 수 없습니다. 새 항목을 추가하고 이 항목을 삭제하세요.',
  'classification.sort': '순서',
  'classification.sortHint': '작은 숫자가 먼저 나옵니다.',
  'classification.terms': '용어',
  'classification.showTerms': '용어 보기',
  'classification.add': '추가',
  'classification.edit': '수정',
  'classification.editOf': '“{name}” 수정',
  'classification.delete': '삭제',
  'classification.deleteOf': '“{name}” 삭제',
  'classification.keyTaken': '이미 쓰고 있는 키입니다. 다른 키를 고르거나 기존 항목을 수정하세요.',
  'classification.keyRule':
    '키는 영문 소문자, 숫자, -, _로 64자까지 입력하세요. 첫 글자는 영문 소문자나 숫자입니다. 예: payments.',
  'classification.gone':
    '이 항목은 더 이상 없습니다. 다른 사람이 삭제했을 수 있습니다. 아래 목록이 현재 상태입니다.',
  'classification.confirmDelete':
    '“{name}”을(를) {terms}에서 쓰고 있습니다. 삭제하면 그 용어들에서 빠지고, 용어마다 새 개정판이 생겨 이력에는 남습니다.',
  'classification.confirmDeleteButton': '삭제하고 {terms}에서 빼기',
  'classification.keepIt': '그대로 두기',

  'classification.editorNone': '아직 정의된 항목이 없습니다.',
  'classification.editorAdd': '분류 체계 페이지에서 도메인과 업무 분류를 추가하세요.',
  'classification.editorAsk': '관리자에게 추가를 요청하세요.',
  'classification.importHint': '파일의 도메인과 업무 분류는 키로 쓰며, 가져오기 전에 먼저 있어야 합니다.',
  'classification.importManage': '분류 체계 페이지에서 관리하세요.',
  'classification.importAsk': '관리자가 추가합니다.',

  'flash.domainCreated': '도메인 “{nameKo}”을(를) 추가했습니다.',
  'flash.categoryCreated': '업무 분류 “{nameKo}”을(를) 추가했습니다.',
  'flash.domainUpdated': '도메인 “{nameKo}”을(를) 저장했습니다.',
  'flash.categoryUpdated': '업무 분류 “{nameKo}”을(를) 저장했습니다.',
  'flash.domainDeleted': '도메인 “{nameKo}”을(를) 삭제했습니다.',
  'flash.categoryDeleted': '업무 분류 “{nameKo}”을(를) 삭제했습니다.',
  'flash.domainDeletedFromTerms':
    '도메인 “{nameKo}”을(를) 삭제했습니다. 이 도메인이 빠진 새 개정판이 생긴 용어: {count}개.',
  'flash.categoryDeletedFromTerms':
    '업무 분류 “{nameKo}”을(를) 삭제했습니다. 이 분류가 빠진 새 개정판이 생긴 용어: {count}개.',
}
